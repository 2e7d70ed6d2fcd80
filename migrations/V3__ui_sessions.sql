-- Signed-in browser sessions of the audit UI. The cookie holds a random token; only its SHA-256
-- is stored, and the API key itself never: a session stands for a key id, re-checked (revoked?)
-- on every request, so revoking the key ends its sessions too.
CREATE TABLE ui_sessions (
    token_hash  bytea PRIMARY KEY,
    key_id      uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    csrf_token  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX ui_sessions_expiry ON ui_sessions (expires_at);
