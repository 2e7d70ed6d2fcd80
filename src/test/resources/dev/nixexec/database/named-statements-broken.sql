-- A file of NamedStatementTest's whose statement names a block it does not have.

-- name: Broken
SELECT {Missing}
