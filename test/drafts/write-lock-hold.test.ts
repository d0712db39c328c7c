/**
 * What a dispatched write does while it holds the draft lock: no store round trip. The row is read before the lock
 * (trusted under it only when no finalize of the draft counted itself meanwhile) and the mirror runs after the
 * release, numbered by the save's revision. A finalize that closed the row between the early read and the lock still
 * sends the write to a continuation.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { HandoffRow, StoreSession } from '../../src/drafts/store-access.js';
import { noteClose, readRevision } from '../../src/drafts/revision.js';
import { fullVerdict } from '../../src/validator/index.js';
import { fakeSession } from '../helpers/drafts.js';
import { tempHome } from '../helpers/cli.js';

const fake = vi.hoisted(() => ({ session: undefined as StoreSession | undefined }));
vi.mock('../../src/drafts/store-access.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/drafts/store-access.js')>();
  return { ...orig, openStoreSession: () => Promise.resolve(fake.session as StoreSession) };
});
const { writeDraft } = await import('../../src/drafts/write.js');
const { addToList } = await import('../../src/drafts/mutate.js');

const AGENT = 'a0123456789abcdef';
const ID = `${AGENT}.aaaaaaaaaaaa`;

const rowOf = (state: string, mirrorRev = 0): HandoffRow =>
  ({
    id: 1,
    contract_id: ID,
    agent_state: state,
    consolidation: 0,
    raw_handoff_json: '{}',
    cut_reason: null,
    mirror_rev: mirrorRev,
  }) as unknown as HandoffRow;

/**
 * A store holding one row; `calls` records each store call with whether the draft's lock was held at that moment.
 * `onFirstRead` runs inside the first row read (a finalize landing between it and the lock).
 */
function store(home: string, state: () => string, onFirstRead?: () => void) {
  const calls: string[] = [];
  const locked = (): string => (existsSync(join(home, 'drafts', `${ID}.lock`)) ? 'locked' : 'free');
  let reads = 0;
  const session = fakeSession({
    exists: () => true,
    row: (id) => {
      calls.push(`row ${locked()}`);
      const r = id === ID ? rowOf(state()) : undefined;
      if (reads++ === 0) onFirstRead?.();
      return r;
    },
    chainFrom: (r) => [r],
    chainIds: () => [ID],
    planTaskBinding: () => null,
    spent: () => new Set(),
    verdict: (envelope, options) => fullVerdict(envelope, { ...options, lookupApproval: () => ({ found: false }) }),
    insertContinuation: () => {
      calls.push(`insertContinuation ${locked()}`);
      return { ...rowOf('DISPATCHED'), id: 2, contract_id: `${AGENT}.cccccccccccc` };
    },
    mirror: (id, _json, rev) => {
      calls.push(`mirror ${id === ID ? 'row' : 'link'} rev ${rev} ${locked()}`);
      return { outcome: 'mirrored' };
    },
    close: () => undefined,
  });
  return { session, calls };
}

const add = (home: string, value: string) => ({
  env: { HANDOFF_HOME: home },
  addressing: { draftId: ID },
  apply: (base: Record<string, unknown>, id: string) => addToList(base, ['evidence_report', 'commands_run'], value, id),
  notice: () => undefined,
});

describe('a dispatched write holds the draft lock for file work only', () => {
  it('reads the open row before the lock and mirrors after releasing it, numbering each save', async () => {
    const home = tempHome();
    const s = store(home, () => 'DISPATCHED');
    fake.session = s.session;
    expect(await writeDraft(add(home, 'one'))).toMatchObject({
      kind: 'ok',
      draftId: ID,
      mirror: { outcome: 'mirrored' },
    });
    expect(await writeDraft(add(home, 'two'))).toMatchObject({
      kind: 'ok',
      draftId: ID,
      mirror: { outcome: 'mirrored' },
    });
    expect(s.calls).toEqual(['row free', 'mirror row rev 1 free', 'row free', 'mirror row rev 2 free']);
    expect(readRevision({ HANDOFF_HOME: home }, ID)).toEqual({ rev: 2, closes: 0 });
  });

  it('a finalize between the early read and the lock: the row is read again under the lock and the write continues', async () => {
    const home = tempHome();
    let state = 'DISPATCHED';
    // What a finalize does under the lock while this write waits for it: it closes the row and counts itself.
    const s = store(
      home,
      () => state,
      () => {
        state = 'BLOCKED';
        noteClose({ HANDOFF_HOME: home }, ID);
      },
    );
    fake.session = s.session;
    const outcome = await writeDraft(add(home, 'late'));
    expect(outcome).toMatchObject({
      kind: 'ok',
      continuation: { status: 'opened', continues_contract_id: ID, closedState: 'BLOCKED' },
    });
    expect(outcome.draftId).not.toBe(ID);
    expect(s.calls).toEqual(['row free', 'row locked', 'insertContinuation locked', 'mirror link rev 1 free']);
    // The closed contract's own draft was not written.
    expect(existsSync(join(home, 'drafts', `${ID}.json`))).toBe(false);
  });
});
