-- Version 11: nothing changes in a SQLite store. The PostgreSQL store's version 11 moves its lock keys to a hash the
-- client computes (migrations/postgres/0011_lock_keys.sql); the two backends keep one numbering, file by file.
SELECT 1;
