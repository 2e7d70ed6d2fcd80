-- The operator role (issue 13): operator keys run the platform (tenants, nodes, keys of every
-- tenant); admin keys from now on run their own tenant only. Existing keys keep their role: every
-- admin key stays an admin of its tenant and keeps working there, and none is promoted here, since
-- a key's row does not tell whether it was meant for the platform. The one key that was, the
-- bootstrap key (nixexec.auth.bootstrap-admin-key), is made an operator key at start-up by the
-- service, which knows its secret and so its hash (Tenants.ensureOperatorKey).
ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check CHECK (role IN ('operator', 'admin', 'member', 'auditor'));
