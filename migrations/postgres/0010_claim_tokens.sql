-- 0010_claim_tokens (PostgreSQL): a contract's claim token, as
-- migrations/0010_claim_tokens.sql: claim_token_sha256, the hex sha256 of the token dispatch printed (never the
-- token), set once. Released: never edit this file.
ALTER TABLE handoffs ADD COLUMN claim_token_sha256 text COLLATE "C"
  CHECK (claim_token_sha256 IS NULL OR claim_token_sha256 ~ '^[0-9a-f]{64}$');

CREATE TRIGGER handoffs_claim_token_set_once
BEFORE UPDATE OF claim_token_sha256 ON handoffs
FOR EACH ROW WHEN (OLD.claim_token_sha256 IS NOT NULL AND NEW.claim_token_sha256 IS DISTINCT FROM OLD.claim_token_sha256)
EXECUTE FUNCTION handoff_refuse('handoffs: claim_token_sha256 is set-once');
