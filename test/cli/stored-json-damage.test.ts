/**
 * Damaged JSON in stored rows, through the built binary: each reader falls back as before (no crash, no stack trace,
 * the same exit code) now that the columns are read through their zod schemas (src/store/stored-json.ts).
 */
import { describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import { dispatchJson, gate, rawStore, rejections, subagentStop } from '../helpers/gate.js';
import { mintDraft, seedRow } from '../helpers/store-cli.js';

function damageCodes(home: string, text: string): void {
  const db = rawStore(home);
  try {
    db.prepare('UPDATE gate_rejections SET last_codes_json = ?').run(text);
  } finally {
    db.close();
  }
}

describe('damaged stored JSON', () => {
  it.each([['not JSON at all'], ['{"codes":["ROW_NOT_FINALIZED"]}']])(
    'gate: a rejection counter whose last codes read %j still counts and blocks, without the previous codes',
    (damaged) => {
      const home = tempHome();
      const d = dispatchJson(home, ['--goal', 'g', '--harness-id', 'sub-d']);
      const input = subagentStop({ session: 's-d', agentId: 'sub-d', extra: { stop_reason: 'end_turn' } });
      // A gate given --draft-id has no proof of delivery to read, so its count is the store's (gate_rejections).
      const args = ['--draft-id', d.contract_id];
      expect(gate(home, args, input).code).toBe(2);
      damageCodes(home, damaged);

      const second = gate(home, args, input);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/\nThis is block 2 of 2: /);
      expect(second.stderr).not.toMatch(/Previous attempt/);
      expect(second.stderr).not.toMatch(/\n\s+at /);
      expect(rejections(home)).toMatchObject([{ attempts: 2, tripped: 0, last_codes_json: '["ROW_NOT_FINALIZED"]' }]);
    },
  );

  it('list --json: can_write_json that is JSON but not a list is shown as null, the row as stored otherwise', () => {
    const home = tempHome();
    const id = mintDraft();
    seedRow(home, { contract_id: id, can_write: { notes: true } as unknown as string[] });
    const r = run(home, ['contract', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(r.json.handoffs).toHaveLength(1);
    expect(r.json.handoffs[0]).toMatchObject({ contract_id: id, can_write: null, acceptance: null });
    expect(r.stderr).toBe('');
  });
});
