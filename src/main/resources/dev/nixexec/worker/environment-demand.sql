-- The statement of the most-used upkeep, by name (EnvironmentDemand).

-- name: Recent
SELECT request #>> '{run,language}' AS language, (request #> '{run,packages}')::text AS packages,
       (request #> '{run,network}')::boolean AS network, count(*) AS jobs
  FROM jobs WHERE created_at > now() - make_interval(secs => :window)
 GROUP BY 1, 2, 3 ORDER BY jobs DESC LIMIT :limit
