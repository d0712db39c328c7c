-- Version 11: the store holds no session state, so it works behind a transaction pooler. Builds from this version
-- on take transaction-scoped advisory locks whose keys the client computes (the first four bytes of the SHA-256 of
-- the contract id; src/store/pg-locks.ts documents it) instead of hashtext(); this bump makes an older build, which
-- still hashes with hashtext(), meet STORE_SCHEMA_TOO_NEW rather than take other locks on the same store.
--
-- The store clock: a transaction sets handoff.now (set_config(..., true), gone at its end) right after its lock
-- waits, so a transaction that waited for another is stamped after it; outside one, the transaction's start time.
CREATE OR REPLACE FUNCTION handoff_now() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    nullif(current_setting('handoff.now', true), ''),
    to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  )
$$;
