/**
 * Stored JSON columns read back through their zod/mini schemas (src/store/stored-json.ts), and what each reader does
 * with a damaged column: the same fallback as before, never a crash.
 */
import { describe, expect, it } from 'vitest';
import type { ZodMiniType } from 'zod/mini';
import { materializeFromRow } from '../../src/drafts/target.js';
import { writableSections } from '../../src/finalize/update-contracts.js';
import { receiptJson, type ReceiptRow } from '../../src/receipts/row.js';
import { exposeHandoff, type HandoffRow } from '../../src/store/handoffs.js';
import {
  acceptanceColumn,
  argvColumn,
  envelopeColumn,
  jsonColumn,
  readStoredJson,
  stringListColumn,
  type StoredColumn,
} from '../../src/store/stored-json.js';

const ID = 'a0123456789abcdef.0123456789ab';

describe('readStoredJson', () => {
  it.each([
    ['NULL', null],
    ['not JSON', '{"a":'],
    ['empty text', ''],
  ])('%s reads as undefined for every column', (_name, text) => {
    const columns: StoredColumn<ZodMiniType>[] = [
      stringListColumn,
      acceptanceColumn,
      argvColumn,
      envelopeColumn,
      jsonColumn,
    ];
    for (const column of columns) {
      expect(readStoredJson(text, column)).toBeUndefined();
    }
  });

  it('a string list keeps its strings and drops other elements; a non-list does not fit', () => {
    expect(readStoredJson('["notes",5,null,"docs"]', stringListColumn)).toEqual(['notes', 'docs']);
    expect(readStoredJson('[]', stringListColumn)).toEqual([]);
    for (const text of ['{"notes":true}', '"notes"', 'null', '7'])
      expect(readStoredJson(text, stringListColumn)).toBeUndefined();
  });

  it('acceptance: a list of {ac_id: string|null, description: string}', () => {
    const good = [
      { ac_id: 'AC-1', description: 'passes' },
      { ac_id: null, description: 'free' },
    ];
    expect(readStoredJson(JSON.stringify(good), acceptanceColumn)).toEqual(good);
    for (const bad of [
      [{ ac_id: 'AC-1' }],
      [{ ac_id: 1, description: 'x' }],
      ['AC-1'],
      { ac_id: null, description: 'x' },
    ]) {
      expect(readStoredJson(JSON.stringify(bad), acceptanceColumn), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('argv: a list of strings', () => {
    expect(readStoredJson('["npm","test"]', argvColumn)).toEqual(['npm', 'test']);
    expect(readStoredJson('["npm",1]', argvColumn)).toBeUndefined();
  });

  it('an envelope column is checked, never rebuilt: the same object, an own __proto__ key kept', () => {
    const text = '{"__proto__":{"polluted":true},"agent_status":{"agent_id":"a0123456789abcdef"}}';
    const v = readStoredJson(text, envelopeColumn) as Record<string, unknown>;
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(JSON.stringify(v)).toBe(text);
    for (const text2 of ['[1]', 'null', '"x"']) expect(readStoredJson(text2, envelopeColumn)).toBeUndefined();
    expect(readStoredJson('[1]', jsonColumn)).toEqual([1]);
  });
});

/** A row with only what these readers look at: its JSON columns. */
const handoffRow = (o: Partial<HandoffRow>): HandoffRow =>
  ({ contract_id: ID, raw_handoff_json: '{}', can_write_json: null, acceptance_json: null, ...o }) as HandoffRow;

describe('readers of damaged columns keep their fallback', () => {
  it('finalize: can_write_json that is not a list allows every section, as an absent list does', () => {
    expect(writableSections('["notes",5]')).toEqual(['notes']);
    expect(writableSections('{"notes":1}')).toBeUndefined();
    expect(writableSections(null)).toBeUndefined();
  });

  it('list/chain --json: a damaged column is exposed as null', () => {
    const out = exposeHandoff(
      handoffRow({ can_write_json: '{"notes":1}', acceptance_json: '[{"ac_id":7}]', raw_handoff_json: 'nope' }),
      true,
    );
    expect([out.can_write, out.acceptance, out.envelope]).toEqual([null, null, null]);
    const fine = exposeHandoff(
      handoffRow({
        can_write_json: '["notes"]',
        acceptance_json: '[{"ac_id":null,"description":"d"}]',
        raw_handoff_json: '[1]',
      }),
      true,
    );
    expect([fine.can_write, fine.acceptance, fine.envelope]).toEqual([
      ['notes'],
      [{ ac_id: null, description: 'd' }],
      [1],
    ]);
  });

  it('a receipt whose argv_json is not a list of strings exposes the stored text', () => {
    const row = { argv_json: '[1,2]', shell: 0, timed_out: 0 } as unknown as ReceiptRow;
    expect(receiptJson(row).argv).toBe('[1,2]');
    expect(receiptJson({ ...row, argv_json: '["ls","-l"]' }).argv).toEqual(['ls', '-l']);
  });

  it('adoption: a stored envelope that is not an object with evidence_report gives the seed', () => {
    const seed = materializeFromRow(handoffRow({ raw_handoff_json: '[1]' }), ID);
    expect(seed.agent_status).toMatchObject({ agent_id: 'a0123456789abcdef', agent_state: 'IN_PROGRESS' });
    const stored = { agent_status: { agent_state: 'BLOCKED' }, evidence_report: {} };
    expect(materializeFromRow(handoffRow({ raw_handoff_json: JSON.stringify(stored) }), ID)).toEqual(stored);
  });
});
