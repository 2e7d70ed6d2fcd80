-- The audit page (/ui/audit) lists the records that are not a job's and the webhook deliveries
-- (a delivery is a job's record, but an auditor looks for it beside the other outside traffic).
-- V33's audit_not_jobs covered job_id IS NULL only. Every query of the page states this same
-- predicate as a literal, so the planner proves these partial indexes apply; each holds only those
-- rows, so the job events (most of the table) cost them nothing but the predicate. One index per
-- shape the page asks, each read newest first and stopped at the page size:
--   a tenant (any kind): audit_outside_jobs;  a tenant and a kind: audit_outside_jobs_by_kind;
--   every tenant (an operator): audit_outside_jobs_newest;  every tenant and a kind: audit_outside_jobs_of_kind.
-- The kind lists of the filter are a skip scan (one min(kind) probe per kind) over the two kind indexes.
DROP INDEX audit_not_jobs;
CREATE INDEX audit_outside_jobs ON audit_events (tenant_id, id DESC)
    WHERE job_id IS NULL OR kind = 'webhook_delivery';
CREATE INDEX audit_outside_jobs_by_kind ON audit_events (tenant_id, kind, id DESC)
    WHERE job_id IS NULL OR kind = 'webhook_delivery';
CREATE INDEX audit_outside_jobs_newest ON audit_events (id DESC)
    WHERE job_id IS NULL OR kind = 'webhook_delivery';
CREATE INDEX audit_outside_jobs_of_kind ON audit_events (kind, id DESC)
    WHERE job_id IS NULL OR kind = 'webhook_delivery';
