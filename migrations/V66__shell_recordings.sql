-- What each attached shell showed and was typed (issue 38): an asciicast v2 recording, bounded by
-- nixexec.attach.max-recording-bytes like a job's output (head and tail kept, the gap marked),
-- written when the shell ends. What was typed may hold secrets: only auditors, admins and operators
-- of the tenant read it (docs/security.md). Deleted with the audit records after the retention.
CREATE TABLE shell_recordings (
    id              uuid PRIMARY KEY,
    tenant_id       uuid NOT NULL REFERENCES tenants (id),
    session_id      uuid NOT NULL,
    key_id          uuid REFERENCES api_keys (id),
    started_at      timestamptz NOT NULL,
    ended_at        timestamptz NOT NULL,
    bytes_in        bigint NOT NULL,
    bytes_out       bigint NOT NULL,
    truncated       boolean NOT NULL,
    close_code      integer NOT NULL,
    close_reason    text NOT NULL,
    exit_code       integer,
    "cast"          text NOT NULL
);

-- a session's shells, oldest first (the session's page)
CREATE INDEX shell_recordings_by_session ON shell_recordings (tenant_id, session_id, started_at);
CREATE INDEX shell_recordings_ended ON shell_recordings (ended_at);
