/**
 * Two hosts (two data roots) sharing one PostgreSQL store: evidence deposited and a receipt
 * recorded on host B verify on host A, whose data root holds no file of them; `contract gc` on a host never deletes
 * a store blob, removes an old unreferenced local file only when every referenced blob is present, and otherwise
 * removes no blob.
 */
import { mkdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, tempHome, type RunResult } from '../helpers/cli.js';
import { dropDatabase, freshDatabase, sql } from '../helpers/pg.js';

let url: string;
beforeEach(async () => {
  url = await freshDatabase();
});
afterEach(async () => {
  await dropDatabase(url);
});

const on = (home: string, args: string[]): RunResult => {
  const dash = args.indexOf('--');
  const argv = dash < 0 ? [...args, '--json'] : [...args.slice(0, dash), '--json', ...args.slice(dash)];
  return run(home, argv, { env: { HANDOFF_STORE_URL: url, HANDOFF_WORKSPACE: 'ws' } });
};
const ok = (home: string, args: string[]): any => {
  const r = on(home, args);
  expect(r.code, `${args.join(' ')}\n${r.stderr}${r.stdout}`).toBe(0);
  return r.json;
};
const blobCount = async (): Promise<number> =>
  Number((await sql<{ n: string }>(url, 'SELECT COUNT(*) AS n FROM blobs'))[0].n);

describe('evidence across hosts', () => {
  it('evidence add and evidence run on host B; evidence show --verify on host A', () => {
    const hostA = tempHome();
    const hostB = tempHome();
    ok(hostB, ['brief', 'add', 'pay', '--ac', 'AC-1=works']);
    const file = join(hostB, 'trace.bin');
    writeFileSync(file, Buffer.from(Array.from({ length: 9000 }, (_, i) => i % 251)));
    const deposited = ok(hostB, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--type',
      'file',
      '--artifact-file',
      file,
    ]).evidence;
    const draft = ok(hostB, ['contract', 'init']).draft_id as string;
    const receipt = ok(hostB, [
      'evidence',
      'run',
      '--draft-id',
      draft,
      '--brief',
      'pay',
      '--ac',
      'AC-1',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write(Buffer.alloc(5000, 1)); process.stderr.write('done')",
    ]).receipt;

    expect(existsSync(join(hostA, 'evidence'))).toBe(false);
    const shown = ok(hostA, ['evidence', 'show', String(deposited.id), '--verify']);
    expect([shown.blob_exists, shown.verified]).toEqual([true, true]);
    expect(ok(hostA, ['evidence', 'show', receipt.receipt_id, '--verify']).verified).toBe(true);
    const rows = ok(hostA, ['evidence', 'list', '--brief', 'pay']).evidence;
    for (const row of rows.filter((e: any) => e.artifact_path !== null)) {
      expect(ok(hostA, ['evidence', 'show', String(row.id), '--verify']).verified).toBe(true);
    }
    expect(rows.map((e: any) => e.type)).toEqual(['file', 'command_output', 'command_output']);
  });

  it('gc never deletes a store blob; an old unreferenced local file goes only while every referenced blob is present', async () => {
    const host = tempHome();
    ok(host, ['brief', 'add', 'pay', '--ac', 'AC-1=works']);
    ok(host, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'y'.repeat(5000)]);
    const stray = join(host, 'evidence', 'ws', 'pay', 'AC-1');
    const old = join(stray, 'old.bin');
    const writeOld = (): void => {
      mkdirSync(stray, { recursive: true });
      writeFileSync(old, 'left behind');
      const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
      utimesSync(old, tenDaysAgo, tenDaysAgo);
    };
    writeOld();
    const gc = ok(host, ['contract', 'gc']);
    expect(gc.blobs.status).toBe('done');
    expect(gc.debris.map((d: any) => [d.path, d.kind])).toEqual([[old, 'blob']]);
    expect(existsSync(old)).toBe(false);
    expect(await blobCount()).toBe(1);

    // A referenced store blob gone: nothing proves the local files unreferenced, so none is removed.
    await sql(url, 'DELETE FROM blobs');
    writeOld();
    const skipped = ok(host, ['contract', 'gc']);
    expect(skipped.blobs.status).toBe('skipped');
    expect(skipped.blobs.missing).toHaveLength(1);
    expect(existsSync(old)).toBe(true);
  });
});
