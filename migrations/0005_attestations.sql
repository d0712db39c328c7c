-- 0005_attestations: the statements the store writes as it records (a finalized handoff, a receipt, an approval
-- decision), each stored in the transaction that writes its row. `payload` is the exact in-toto Statement JSON that
-- is (or would be) signed; `signature` (base64) and `key_id` (sha256 of the public key's SPKI DER) are the DSSE
-- signature over it when a key was configured. Append-only: rows are never updated or deleted.
-- Released: never edit this file.

CREATE TABLE attestations (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  kind           TEXT    NOT NULL CHECK (kind IN ('handoff','receipt','approval')),
  subject_id     TEXT    NOT NULL CHECK (length(subject_id) > 0),
  payload        TEXT    NOT NULL CHECK (json_valid(payload)),
  payload_sha256 TEXT    NOT NULL CHECK (length(payload_sha256) = 64 AND payload_sha256 NOT GLOB '*[^0-9a-f]*'),
  signer         TEXT    CHECK (signer IS NULL OR signer IN ('store','approver')),
  key_id         TEXT    CHECK (key_id IS NULL OR (length(key_id) = 64 AND key_id NOT GLOB '*[^0-9a-f]*')),
  signature      TEXT,
  created_at     TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  CHECK ((signer IS NULL) = (key_id IS NULL) AND (key_id IS NULL) = (signature IS NULL))
);
CREATE INDEX attestations_subject_idx ON attestations (kind, subject_id, id);

CREATE TRIGGER attestations_no_update
BEFORE UPDATE ON attestations
BEGIN
  SELECT RAISE(ABORT, 'attestations are append-only');
END;

CREATE TRIGGER attestations_no_delete
BEFORE DELETE ON attestations
BEGIN
  SELECT RAISE(ABORT, 'attestations are append-only');
END;
