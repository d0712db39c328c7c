/** `attest export --format a2a` on the PostgreSQL store: the same Tasks, valid A2A v1, tied to the signed head. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/pg.js';
import { runOk, signedChain } from '../helpers/attest.js';
import { a2aTaskProblems, headDigests } from '../helpers/a2a.js';

const lines = (file: string): string[] => readFileSync(file, 'utf8').trimEnd().split('\n');

describe('A2A export on PostgreSQL', () => {
  it('a chain of an approval request, a COMPLETE turn on a receipt and a BLOCKED turn', async () => {
    const url = await freshDatabase();
    const c = signedChain({ env: { HANDOFF_STORE_URL: url } });
    const out = join(c.home, 'tasks.jsonl');
    const r = runOk(c.home, ['attest', 'export', '--format', 'a2a', '--chain', c.first, '--out', out, '--json'], c.env);
    expect(r.json).toMatchObject({ tasks: 3, context_id: c.first, tip: c.links[2] });
    const tasks = lines(out).map((l) => JSON.parse(l));
    for (const t of tasks) expect(a2aTaskProblems(t), JSON.stringify(t)).toEqual([]);
    expect(tasks.map((t) => t.status.state)).toEqual([
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
    ]);
    expect(tasks[0].artifacts.map((a: any) => a.artifactId)).toEqual(['envelope', `approval:${c.approvalId}`]);
    expect(tasks[1].artifacts.filter((a: any) => a.artifactId.startsWith('receipt:'))).toHaveLength(1);

    const signed = join(c.home, 'signed.jsonl');
    runOk(c.home, ['attest', 'export', '--chain', c.first, '--out', signed], c.env);
    const all = lines(signed);
    const head = JSON.parse(Buffer.from(JSON.parse(all[all.length - 1]).dsseEnvelope.payload, 'base64').toString());
    expect(tasks.map((t) => t.metadata.handoff.statement.payload_sha256)).toEqual(headDigests(head).slice(0, 3));
  });
});
