/**
 * The write pipeline's store-dependent branches that a CLI test cannot stage: the one restart when another writer
 * opened the continuation link first, and the rendering of every mirror outcome.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HandoffRow, StoreSession } from '../../src/drafts/store-access.js';
import { fullVerdict } from '../../src/validator/index.js';
import { fakeSession } from '../helpers/drafts.js';
import { renderWriteOutcome } from '../../src/render/write-result.js';
import { tempHome } from '../helpers/cli.js';

const fake = vi.hoisted(() => ({ session: undefined as StoreSession | undefined }));
vi.mock('../../src/drafts/store-access.js', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/drafts/store-access.js')>();
  return { ...orig, openStoreSession: () => Promise.resolve(fake.session as StoreSession) };
});
const { writeDraft } = await import('../../src/drafts/write.js');
const { addToList } = await import('../../src/drafts/mutate.js');
const { continuationSeed } = await import('../../src/drafts/target.js');

const AGENT = 'a0123456789abcdef';
const PARENT = `${AGENT}.aaaaaaaaaaaa`;
const LINK = `${AGENT}.bbbbbbbbbbbb`;

const row = (id: number, contractId: string, state: string, raw = '{}'): HandoffRow =>
  ({
    id,
    contract_id: contractId,
    agent_state: state,
    consolidation: 0,
    raw_handoff_json: raw,
    cut_reason: null,
  }) as unknown as HandoffRow;

/** A store where PARENT is closed and, once `raced` is set, LINK (opened by "another writer") continues it. */
function racingStore(racesLeft: number): { session: StoreSession; inserts: number } {
  const state = { raced: false, inserts: 0, racesLeft };
  const parent = row(1, PARENT, 'COMPLETE');
  const link = row(2, LINK, 'DISPATCHED', JSON.stringify(continuationSeed(PARENT)));
  const session: StoreSession = fakeSession({
    exists: () => true,
    row: (id) => (id === PARENT ? parent : state.raced && id === LINK ? link : undefined),
    chainFrom: (r) => (r.id === 1 && state.raced ? [parent, link] : [r]),
    chainIds: () => (state.raced ? [PARENT, LINK] : [PARENT]),
    planTaskBinding: () => null,
    spent: () => new Set(),
    verdict: (envelope, options) => fullVerdict(envelope, { ...options, lookupApproval: () => ({ found: false }) }),
    insertContinuation: () => {
      state.inserts++;
      if (state.racesLeft > 0) {
        state.racesLeft--;
        state.raced = state.racesLeft === 0 ? true : state.raced;
        return undefined;
      }
      return row(3, 'x', 'DISPATCHED');
    },
    mirror: () => ({ outcome: 'mirrored' }),
    close: () => undefined,
  });
  return {
    session,
    get inserts() {
      return state.inserts;
    },
  };
}

describe('continuation race', () => {
  let home: string;
  beforeEach(() => {
    home = tempHome();
  });

  it('the tip already has a link → nothing inserted, one restart, the write lands on that link (adopted)', async () => {
    const store = racingStore(1);
    fake.session = store.session;
    const outcome = await writeDraft({
      env: { HANDOFF_HOME: home },
      addressing: { draftId: PARENT },
      apply: (base, id) => addToList(base, ['evidence_report', 'commands_run'], 'x', id),
      notice: () => undefined,
    });
    expect(outcome).toMatchObject({ kind: 'ok', draftId: LINK, adopted: true, continuation: undefined });
    expect(store.inserts).toBe(1);
    const saved = JSON.parse(readFileSync(join(home, 'drafts', `${LINK}.json`), 'utf8'));
    expect(saved.continues_contract_id).toBe(PARENT);
    expect(saved.evidence_report.commands_run).toEqual(['x']);
  });

  it('losing the race twice → STORE_BUSY (exit 4), nothing saved', async () => {
    const store = racingStore(5);
    fake.session = store.session;
    await expect(
      writeDraft({
        env: { HANDOFF_HOME: home },
        addressing: { draftId: PARENT },
        apply: (base, id) => addToList(base, ['evidence_report', 'commands_run'], 'x', id),
        notice: () => undefined,
      }),
    ).rejects.toMatchObject({ code: 'STORE_BUSY', exit: 4 });
    expect(store.inserts).toBe(2);
  });
});

describe('success rendering', () => {
  const base = { kind: 'ok' as const, draftId: LINK, adopted: false, canonicalized: [], sanitized: [], warnings: [] };

  it.each([
    ['closed', /^\[MIRROR SKIPPED: closed\] .*again.*continuation/],
    ['store_busy', /^\[MIRROR SKIPPED: store_busy\] /],
    ['store_error', /^\[MIRROR SKIPPED: store_error\] .*disk I\/O error/],
  ] as const)('mirror %s → mirrored false with the reason and a notice', (outcome, notice) => {
    const { result: r, notices: lines } = renderWriteOutcome({
      ...base,
      mirror: { outcome, message: 'disk I/O error' },
    });
    expect(r.json).toEqual({ status: 'ok', draft_id: LINK, mirrored: false, mirror_skipped_reason: outcome });
    expect(lines).toEqual([expect.stringMatching(notice)]);
  });

  it('notices in order: ADOPTED, CONTINUATION, CANONICALIZED, MIRROR SKIPPED; JSON carries the same facts', () => {
    const { result: r, notices: lines } = renderWriteOutcome({
      ...base,
      adopted: true,
      mirror: { outcome: 'store_busy' },
      continuation: {
        status: 'opened',
        contract_id: LINK,
        handoff_id: 2,
        continues_contract_id: PARENT,
        continues_handoff_id: 1,
        closedState: 'BLOCKED',
      },
      canonicalized: [{ path: 'work_phase', from: 'X', to: 'x' }],
      sanitized: [{ path: 'commands_run', action: 'removed', home: 'evidence_report.commands_run', note: 'n' }],
    });
    expect(lines.map((l) => l.split(']')[0])).toEqual([
      '[ADOPTED',
      '[CONTINUATION opened',
      '[CANONICALIZED',
      '[MIRROR SKIPPED: store_busy',
    ]);
    expect(Object.keys(r.json ?? {})).toEqual([
      'status',
      'draft_id',
      'mirrored',
      'mirror_skipped_reason',
      'adopted',
      'continuation',
      'canonicalized',
      'sanitized',
    ]);
    expect(r.json?.continuation).toEqual({
      status: 'opened',
      contract_id: LINK,
      handoff_id: 2,
      continues_contract_id: PARENT,
      continues_handoff_id: 1,
      continues_state: 'BLOCKED',
    });
    // The notice names the closed row, its handoff id and state, and the new contract.
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\[CONTINUATION opened\\] ${PARENT} \\(handoff_id 1\\) is closed \\(BLOCKED\\).*new contract ${LINK}`,
      ),
    );
    expect(r.json?.sanitized).toEqual([
      { path: 'commands_run', action: 'removed', home: 'evidence_report.commands_run' },
    ]);
    expect(r.text).toBe(`OK: draft ${LINK} updated and valid.`);
  });
});
