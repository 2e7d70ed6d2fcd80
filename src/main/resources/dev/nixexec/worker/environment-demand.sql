-- The statement of the most-used upkeep, by name (EnvironmentDemand).

-- name: Recent
SELECT language, packages::text AS packages, network, count(*) AS jobs
  FROM jobs WHERE created_at > now() - make_interval(secs => :window)
 GROUP BY language, packages, network ORDER BY jobs DESC LIMIT :limit
