/**
 * `writeDraft({onClosedTip: 'skip'})` (the receipt append): a write aimed at a closed contract
 * returns `closed_tip` before the change is applied; no continuation link is opened and nothing is saved. Without
 * the option the pipeline still opens a continuation.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { HandoffRow, StoreSession } from '../../src/drafts/store-access.js';
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
const PARENT = `${AGENT}.aaaaaaaaaaaa`;
const LINK = `${AGENT}.bbbbbbbbbbbb`;

const row = (id: number, contractId: string, state: string): HandoffRow =>
  ({
    id,
    contract_id: contractId,
    agent_state: state,
    consolidation: 0,
    raw_handoff_json: '{}',
    cut_reason: null,
  }) as unknown as HandoffRow;

/** PARENT in `parentState`; with `continued`, LINK (DISPATCHED) continues it. Counts link inserts. */
function session(parentState: string, continued: boolean): { session: StoreSession; inserts: () => number } {
  let inserts = 0;
  const parent = row(1, PARENT, parentState);
  const link = row(2, LINK, 'DISPATCHED');
  return {
    inserts: () => inserts,
    session: fakeSession({
      exists: () => true,
      row: (id) => (id === PARENT ? parent : continued && id === LINK ? link : undefined),
      chainFrom: (r) => (r.id === 1 && continued ? [parent, link] : [r]),
      chainIds: () => (continued ? [PARENT, LINK] : [PARENT]),
      planTaskBinding: () => null,
      spent: () => new Set(),
      verdict: (envelope, options) => fullVerdict(envelope, { ...options, lookupApproval: () => ({ found: false }) }),
      insertContinuation: () => {
        inserts++;
        return row(3, `${AGENT}.cccccccccccc`, 'DISPATCHED');
      },
      mirror: () => ({ outcome: 'mirrored' }),
      close: () => undefined,
    }),
  };
}

function request(home: string, applied: string[], onClosedTip?: 'skip') {
  return {
    env: { HANDOFF_HOME: home },
    addressing: { draftId: PARENT },
    apply: (base: Record<string, unknown>, id: string) => {
      applied.push(id);
      return addToList(base, ['evidence_report', 'commands_run'], 'x', id);
    },
    notice: () => undefined,
    ...(onClosedTip ? { onClosedTip } : {}),
  };
}

const drafts = (home: string): string[] =>
  existsSync(join(home, 'drafts')) ? readdirSync(join(home, 'drafts')).filter((f) => f.endsWith('.json')) : [];

describe("writeDraft onClosedTip: 'skip'", () => {
  it('a closed tip: closed_tip, the change is never applied, no link opened, nothing saved', async () => {
    const home = tempHome();
    const s = session('COMPLETE', false);
    fake.session = s.session;
    const applied: string[] = [];
    const outcome = await writeDraft({ ...request(home, applied), onClosedTip: 'skip' });
    expect(outcome).toEqual({ kind: 'closed_tip', draftId: PARENT, tipId: PARENT });
    expect(applied).toEqual([]);
    expect(s.inserts()).toBe(0);
    expect(drafts(home)).toEqual([]);
  });

  it('a contract closed and continued meanwhile (the live tip is a later, open link): closed_tip, nothing written', async () => {
    const home = tempHome();
    const s = session('BLOCKED', true);
    fake.session = s.session;
    const applied: string[] = [];
    const outcome = await writeDraft({ ...request(home, applied), onClosedTip: 'skip' });
    expect(outcome).toEqual({ kind: 'closed_tip', draftId: PARENT, tipId: LINK });
    expect(applied).toEqual([]);
    expect(s.inserts()).toBe(0);
    expect(drafts(home)).toEqual([]);
  });

  it('an open tip is written as usual', async () => {
    const home = tempHome();
    fake.session = session('DISPATCHED', false).session;
    const applied: string[] = [];
    const outcome = await writeDraft({ ...request(home, applied), onClosedTip: 'skip' });
    expect(outcome).toMatchObject({ kind: 'ok', draftId: PARENT, adopted: true });
    expect(applied).toEqual([PARENT]);
    expect(drafts(home)).toEqual([`${PARENT}.json`]);
  });

  it('without the option a closed tip still opens a continuation (set/add/fill)', async () => {
    const home = tempHome();
    const s = session('COMPLETE', false);
    fake.session = s.session;
    const applied: string[] = [];
    const outcome = await writeDraft(request(home, applied));
    expect(outcome).toMatchObject({ kind: 'ok', continuation: { status: 'opened', continues_contract_id: PARENT } });
    expect(applied).toEqual([PARENT]);
    expect(s.inserts()).toBe(1);
  });
});
