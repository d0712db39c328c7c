-- 0010_claim_tokens: a contract's claim token. claim_token_sha256 is the lowercase hex sha256
-- of the token dispatch printed; the token itself is never stored. Set once (at dispatch, or at the finalize of an init draft); `contract claim` of a row that
-- has one needs the token. Rows from before this migration keep NULL and today's claim rule. Released: never edit.
ALTER TABLE handoffs ADD COLUMN claim_token_sha256 TEXT
  CHECK (claim_token_sha256 IS NULL OR (length(claim_token_sha256) = 64 AND claim_token_sha256 NOT GLOB '*[^0-9a-f]*'));

CREATE TRIGGER handoffs_claim_token_set_once
BEFORE UPDATE OF claim_token_sha256 ON handoffs
WHEN OLD.claim_token_sha256 IS NOT NULL AND NEW.claim_token_sha256 IS NOT OLD.claim_token_sha256
BEGIN
  SELECT RAISE(ABORT, 'handoffs: claim_token_sha256 is set-once');
END;
