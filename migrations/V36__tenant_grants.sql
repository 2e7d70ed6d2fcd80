-- What an operator granted each tenant: the widest policy the tenant's own admin may set
-- (tenant/Grant.java). A tenant's policy so far was set by an operator or by its admin without
-- bounds; it becomes the grant, so nothing a tenant may do today changes, and from now on an admin
-- only narrows it. A tenant made without one is granted the service's defaults, as its policy is.
ALTER TABLE tenants ADD COLUMN granted jsonb NOT NULL DEFAULT '{}'::jsonb;
UPDATE tenants SET granted = policy;
