-- Judge0-grade jobs (issue 17): the arguments passed to the program, the encoding of stdout and
-- stderr asked for (a base64 job keeps its output's exact bytes beside the text, which shows bytes
-- that are not UTF-8, and NUL, as U+FFFD), and reruns: the job rerun and the nixpkgs revision the
-- rerun must run on (a worker that pins another one ends it error/nixpkgs_changed). rerun_of has
-- no foreign key: retention may delete the original before its rerun.
ALTER TABLE jobs
    ADD COLUMN args jsonb NOT NULL DEFAULT '[]'::jsonb,
    ADD COLUMN encoding text NOT NULL DEFAULT 'utf-8' CHECK (encoding IN ('utf-8', 'base64')),
    ADD COLUMN stdout_exact bytea,
    ADD COLUMN stderr_exact bytea,
    ADD COLUMN rerun_of uuid,
    ADD COLUMN required_nixpkgs_revision text;
