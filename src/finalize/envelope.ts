/** Finalize step 3: sanitize, canonicalize, drop the gate's capture markers. */
import type { JsonObject } from '../envelope/vocabulary.js';
import { defineOwn } from '../drafts/mutate.js';
import { sanitizeEnvelope, sanitizedNotice } from '../drafts/sanitize.js';
import { canonicalizeEnvelope } from '../validator/index.js';

/** Root system keys a backstop capture stamps; they never reach a clean row. */
export const CAPTURE_MARKERS: readonly string[] = ['degraded', 'auto_captured', 'backstop'];

/** The envelope finalize persists (and judges), built from the loaded draft; the draft itself is never rewritten. */
export function finalEnvelope(loaded: JsonObject, notice: (line: string) => void): JsonObject {
  const sanitized = sanitizeEnvelope(loaded);
  for (const r of sanitized.repairs) notice(sanitizedNotice(r));
  const canonical = canonicalizeEnvelope(sanitized.envelope).envelope;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(canonical)) if (!CAPTURE_MARKERS.includes(k)) defineOwn(out, k, v);
  return out;
}
