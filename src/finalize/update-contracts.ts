/**
 * Finalize step 9, the store-side parts: the shape of `update_contracts` and its entries
 * (UPDATE_CONTRACTS_SHAPE) and the dispatch's writable sections (SECTION_NOT_WRITABLE). The evidence clause
 * (EVIDENCE_*) is src/evidence/update-contracts.ts; its errors are merged here in entry order.
 */
import { jsonQuote } from '../errors.js';
import { isObject, own, type JsonObject } from '../envelope/vocabulary.js';
import { readStoredJson, stringListColumn } from '../store/stored-json.js';

export interface ClauseError {
  code: string;
  path: string;
  detail: string;
}

/** The repair text of a step-9/step-10 rejection. */
export const UPDATE_CONTRACTS_REPAIR =
  'update_contracts is a list of entries {"contract": "<section>", "payload": {…}}. An evidence entry uses ' +
  '"contract": "evidence" and a payload {"brief_id": <id from handoff brief add>, "ac_id": "AC-1", "type": ' +
  '"text|file|command_output|url|screenshot", "text": "…"} or "artifact_path": "<path printed by handoff evidence add>" ' +
  'instead of "text" (deposit files with `handoff evidence add` first). Other sections must be allowed by the ' +
  "dispatch's --can-write list. Fix the entries with `handoff contract set update_contracts '[…]'`, then finalize again.";

/** The sections a row's `can_write_json` allows, or undefined when the dispatch gave no list (anything goes). */
export const writableSections = (canWriteJson: string | null | undefined): string[] | undefined =>
  readStoredJson(canWriteJson, stringListColumn);

/** Shape and section checks of every entry; evidence entries are left to the evidence clause. */
export function checkUpdateContracts(envelope: JsonObject, sections: string[] | undefined): ClauseError[] {
  const uc = own(envelope, 'update_contracts');
  if (uc === undefined || uc === null) return [];
  if (!Array.isArray(uc)) {
    return [
      {
        code: 'UPDATE_CONTRACTS_SHAPE',
        path: 'update_contracts',
        detail: `must be a list of entries, got ${jsonQuote(uc)}`,
      },
    ];
  }
  const errors: ClauseError[] = [];
  uc.forEach((entry: unknown, i) => {
    const at = `update_contracts[${i}]`;
    if (!isObject(entry)) {
      errors.push({
        code: 'UPDATE_CONTRACTS_SHAPE',
        path: at,
        detail: `an entry must be an object {"contract", "payload"}, got ${jsonQuote(entry)}`,
      });
      return;
    }
    const contract = own(entry, 'contract');
    const contractOk = typeof contract === 'string' && contract.trim() !== '';
    if (!contractOk) {
      errors.push({
        code: 'UPDATE_CONTRACTS_SHAPE',
        path: `${at}.contract`,
        detail: `must be a non-blank string naming the section, got ${jsonQuote(contract)}`,
      });
    }
    if (!isObject(own(entry, 'payload'))) {
      errors.push({
        code: 'UPDATE_CONTRACTS_SHAPE',
        path: `${at}.payload`,
        detail: `must be an object, got ${jsonQuote(own(entry, 'payload'))}`,
      });
    }
    if (contractOk && contract !== 'evidence' && sections !== undefined && !sections.includes(contract)) {
      errors.push({
        code: 'SECTION_NOT_WRITABLE',
        path: `${at}.contract`,
        detail: `section ${jsonQuote(contract)} is not writable by this turn (the dispatch allows: ${sections.length > 0 ? sections.join(', ') : 'none'})`,
      });
    }
  });
  return errors;
}

const entryIndex = (path: string): number => {
  const m = /^update_contracts\[(\d+)\]/.exec(path);
  return m === null ? -1 : Number(m[1]);
};

/** Merges the shape/section errors and the evidence clause's errors, ordered by entry (stable within an entry). */
export function mergeByEntry(a: ClauseError[], b: ClauseError[]): ClauseError[] {
  return [...a, ...b]
    .map((e, n) => ({ e, n }))
    .sort((x, y) => entryIndex(x.e.path) - entryIndex(y.e.path) || x.n - y.n)
    .map((x) => x.e);
}
