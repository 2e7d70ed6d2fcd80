-- A workspace file's executable bit, kept across store-back and materialising.
ALTER TABLE workspace_files ADD COLUMN executable boolean NOT NULL DEFAULT false;
