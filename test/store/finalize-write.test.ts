/**
 * Finalize's step 10 without a store file: a write SQLite would refuse is STORE_WRITE_REFUSED (exit 4) and the file
 * is not created. Drafts deeper than MAX_JSON_DEPTH are refused at the read (DRAFT_UNREADABLE), so the draft read is
 * replaced here by one that hands finalize an envelope SQLite's json_valid() refuses (1001+ levels).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { initialEnvelope, type JsonObject } from '../../src/envelope/vocabulary.js';
import type { DraftRead } from '../../src/drafts/files.js';
import { finalizeDraft } from '../../src/finalize/service.js';
import { tempStore } from '../helpers/store.js';

const deepOverride = vi.hoisted(() => ({ envelope: undefined as JsonObject | undefined }));

vi.mock('../../src/drafts/files.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/drafts/files.js')>();
  return {
    ...real,
    readDraft: (...args: Parameters<typeof real.readDraft>): DraftRead => {
      const r = real.readDraft(...args);
      return r.state === 'ok' && deepOverride.envelope !== undefined ? { ...r, envelope: deepOverride.envelope } : r;
    },
  };
});

function nested(depth: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

async function caught(p: Promise<unknown>): Promise<{ code?: string; exit?: number; message?: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code?: string; exit?: number; message?: string };
  }
  return {};
}

describe('finalize step 10 with no store file', () => {
  it('an envelope json_valid() refuses is STORE_WRITE_REFUSED (exit 4) and creates no DB file', async () => {
    const { dir, file, env } = tempStore();
    const agent = `a${'1'.repeat(16)}`;
    const id = `${agent}.${'2'.repeat(12)}`;
    const envelope = initialEnvelope(agent) as Record<string, any>;
    envelope.agent_status.agent_state = 'BLOCKED';
    mkdirSync(join(dir, 'drafts'), { recursive: true });
    writeFileSync(join(dir, 'drafts', `${id}.json`), `${JSON.stringify(envelope, null, 2)}\n`);
    deepOverride.envelope = {
      ...envelope,
      evidence_report: { ...envelope.evidence_report, key_outputs: [nested(1200)] },
    };
    const req = {
      env,
      cwd: dir,
      addressing: { draftId: id },
      workspace: 'ws',
      planTaskId: undefined,
      allowStale: false,
      notice: () => undefined,
    };
    const err = await caught(finalizeDraft(req));
    expect(err).toMatchObject({ code: 'STORE_WRITE_REFUSED', exit: 4 });
    expect(err.message).toContain(file);
    expect(err.message).toContain('json_valid');
    expect(existsSync(file)).toBe(false);

    // The same draft at an accepted depth is written, creating the store.
    deepOverride.envelope = {
      ...envelope,
      evidence_report: { ...envelope.evidence_report, key_outputs: [nested(400)] },
    };
    const ok = await finalizeDraft(req);
    expect(ok).toMatchObject({ kind: 'ok', created: true });
    expect(existsSync(file)).toBe(true);
  });
});
