-- The statements of callback deliveries, by name (CallbackDeliveries): {Name} stands for that
-- block's text, and whole-line comments are not sent.

-- name: DueHost
-- The host of a due row's url (IPv6 in brackets), lower case: the key of its host's places.
lower(substring(cb.url from '^[a-zA-Z]+://(\[[^]]*\]|[^/?#:]*)'))

-- name: ClaimedHost
-- The same host of a claimed row's url.
lower(substring(c.url from '^[a-zA-Z]+://(\[[^]]*\]|[^/?#:]*)'))

-- name: Claim
-- Ended jobs' due callbacks whose host has places left, one node each, leased past the attempt's timeout.
UPDATE job_callbacks c SET attempts = c.attempts + 1,
       next_attempt_at = now() + make_interval(secs => :lease_seconds)
FROM (SELECT cb.job_id FROM job_callbacks cb JOIN jobs j ON j.id = cb.job_id
      WHERE cb.finished_at IS NULL AND cb.next_attempt_at <= now()
        AND j.status IN ('succeeded', 'failed', 'timed_out', 'cancelled', 'error')
        AND {DueHost} <> ALL (string_to_array(:full_hosts, ' '))
      ORDER BY cb.next_attempt_at LIMIT :limit FOR UPDATE OF cb SKIP LOCKED) due
WHERE c.job_id = due.job_id
RETURNING c.job_id, c.tenant_id, c.url, c.attempts, {ClaimedHost} AS host

-- name: PutBack
-- Undoes the claim of deliveries that got no place: due again at once, their attempt not counted.
UPDATE job_callbacks SET attempts = attempts - 1, next_attempt_at = now()
WHERE job_id = ANY (CAST(string_to_array(:job_ids, ' ') AS uuid[]))

-- name: Retry
UPDATE job_callbacks SET next_attempt_at = now() + make_interval(secs => :delay_seconds) WHERE job_id = :job

-- name: Finish
UPDATE job_callbacks SET finished_at = now(), outcome = :outcome WHERE job_id = :job
