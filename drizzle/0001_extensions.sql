-- Custom SQL migration file: extensions used by search (pg_trgm for typo-tolerant contact search)
CREATE EXTENSION IF NOT EXISTS pg_trgm;
