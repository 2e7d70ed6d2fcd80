-- The statements of signed-in browser sessions, by name (UiSessions).

-- name: DeleteExpired
DELETE FROM ui_sessions WHERE expires_at < now()

-- name: Insert
INSERT INTO ui_sessions (token_hash, key_id, csrf_token, expires_at)
VALUES (:token_hash, :key, :csrf, now() + make_interval(secs => :lifetime))

-- name: Find
SELECT key_id, csrf_token FROM ui_sessions WHERE token_hash = :token_hash AND expires_at > now()

-- name: Delete
DELETE FROM ui_sessions WHERE token_hash = :token_hash
