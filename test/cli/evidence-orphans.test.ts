import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { addBrief, expectRefusal } from '../helpers/evidence.js';

const W = ['--workspace', 'ws', '--json'];

describe('evidence orphans', () => {
  it('NO_STORE (exit 3) without a DB; nothing created', () => {
    const home = tempHome();
    mkdirSync(join(home, 'evidence', 'ws'), { recursive: true });
    writeFileSync(join(home, 'evidence', 'ws', 'stray'), 'x');
    const before = snapshot(home);
    expectRefusal(run(home, ['evidence', 'orphans', '--json']), 'NO_STORE', 3);
    expect(snapshot(home)).toEqual(before);
  });

  it('an unreadable DB is a store error (exit 4) for orphans and the read verbs', () => {
    const home = tempHome();
    writeFileSync(
      join(home, 'handoff.db'),
      'not a sqlite file at all, just text that is long enough to be a header....',
    );
    const before = snapshot(home);
    expectRefusal(run(home, ['evidence', 'orphans', '--json']), 'STORE_UNREADABLE', 4);
    expectRefusal(run(home, ['brief', 'list', ...W]), 'STORE_UNREADABLE', 4);
    expectRefusal(run(home, ['evidence', 'show', '1', '--json']), 'STORE_UNREADABLE', 4);
    expectRefusal(
      run(home, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'x', ...W]),
      'STORE_UNREADABLE',
      4,
    );
    expect(snapshot(home)).toEqual(before);
  });

  it('an absent evidence root: empty lists, exit 0', () => {
    const home = tempHome();
    addBrief(home, 'pay');
    expect(run(home, ['evidence', 'orphans', '--json']).json).toEqual({
      status: 'ok',
      count: 0,
      orphans: [],
      missing: [],
    });
  });

  it('finds stray files (blob, temp, link, other kinds) but not referenced blobs, and rows whose blob is gone; read-only', () => {
    const home = tempHome();
    addBrief(home, 'pay', ['AC-1']);
    const add = (text: string) =>
      run(home, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', text, ...W]).json
        .evidence;
    const kept = add('k'.repeat(5000));
    const gone = add('g'.repeat(5000));
    add('inline');
    rmSync(gone.artifact_path);
    const dir = join(home, 'evidence', 'ws', 'pay', 'AC-1');
    const stray = join(dir, `${randomUUID()}.txt`);
    writeFileSync(stray, 'stray');
    const temp = join(dir, `.${randomUUID()}.tmp`);
    writeFileSync(temp, 'partial');
    const link = join(home, 'evidence', 'ws', 'link');
    symlinkSync(kept.artifact_path, link);
    const outsideLinkDir = join(home, 'evidence', 'ws', 'outdir');
    symlinkSync(mkdtempSync(join(tmpdir(), 'handoff-outdir-')), outsideLinkDir);
    mkdirSync(join(home, 'evidence', 'ws', '_receipts', 'R-0123456789abcdef'), { recursive: true });
    const receiptOut = join(home, 'evidence', 'ws', '_receipts', 'R-0123456789abcdef', 'stdout');
    writeFileSync(receiptOut, 'out');
    const before = snapshot(home);
    const r = run(home, ['evidence', 'orphans', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const byPath = Object.fromEntries(r.json.orphans.map((o: any) => [o.path, o.kind]));
    expect(byPath).toEqual({
      [stray]: 'blob',
      [temp]: 'temp',
      [link]: 'link',
      [outsideLinkDir]: 'link',
      [receiptOut]: 'blob',
    });
    expect(r.json.count).toBe(5);
    expect(r.json.orphans.find((o: any) => o.path === stray)).toEqual({
      path: stray,
      kind: 'blob',
      size_bytes: 5,
      mtime: expect.stringMatching(/Z$/),
    });
    expect(r.json.missing).toEqual([{ id: gone.id, artifact_path: gone.artifact_path }]);
    expect(snapshot(home)).toEqual(before);
    const human = run(home, ['evidence', 'orphans']).stdout.trim().split('\n');
    expect(human.at(-1)).toBe('5 orphan(s), 1 missing blob(s).');
    expect(human).toContain(stray);
  });

  it('an "other" kind: a FIFO below the root is listed, never read', () => {
    const home = tempHome();
    addBrief(home, 'pay');
    mkdirSync(join(home, 'evidence'));
    const fifo = join(home, 'evidence', 'fifo');
    execFileSync('mkfifo', [fifo]);
    const r = run(home, ['evidence', 'orphans', '--json'], { timeout: 120_000 });
    expect(r.json.orphans).toEqual([{ path: fifo, kind: 'other', size_bytes: 0, mtime: expect.any(String) }]);
  });
});
