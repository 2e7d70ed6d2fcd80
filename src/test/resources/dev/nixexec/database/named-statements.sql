-- A file of NamedStatementTest's: a fragment, comments, quoted text and a cast.

-- name: Pair
-- a fragment; this comment's :ghost is no parameter
:a AS a, :b AS b

-- name: Select
SELECT {Pair}, ':quoted' AS quoted, CAST('7' AS text)::int AS cast
-- :ghost again, between lines of the statement
