import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/store/sqlite.js';
import { run, runAsync, snapshot, tempHome } from '../helpers/cli.js';
import { addBrief, counts, evidenceTree, expectHumanRefusal, expectRefusal, state } from '../helpers/evidence.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const W = ['--workspace', 'ws', '--json'];
const add = (home: string, flags: string[], opts = {}) =>
  run(home, ['evidence', 'add', '--brief', 'pay', '--type', 'file', ...flags, ...W], opts);

function withBrief(acs: string[] = ['AC-1']): string {
  const home = tempHome();
  addBrief(home, 'pay', acs);
  return home;
}

function file(home: string, name: string, content: Buffer | string): string {
  const p = join(home, name);
  writeFileSync(p, content);
  return p;
}

describe('evidence add: inline or blob at 4096 bytes', () => {
  it('--text of 4096 bytes is inline; 4097 is a .txt blob with the bytes, digest and size', () => {
    const home = withBrief();
    const r1 = add(home, ['--ac', 'AC-1', '--text', 'a'.repeat(4096)]);
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.json).toMatchObject({
      status: 'ok',
      storage: 'inline',
      evidence: { text: 'a'.repeat(4096), artifact_path: null, size_bytes: 4096, sha256: sha('a'.repeat(4096)) },
    });
    const r2 = add(home, ['--ac', 'AC-1', '--text', 'b'.repeat(4097)]);
    expect(r2.json.storage).toBe('blob');
    const e = r2.json.evidence;
    expect(e).toMatchObject({ text: null, size_bytes: 4097, sha256: sha('b'.repeat(4097)) });
    expect(e.artifact_path).toMatch(
      new RegExp(
        `^${realpathSync(home)}/evidence/ws/pay/AC-1/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\\.txt$`,
      ),
    );
    expect(readFileSync(e.artifact_path, 'utf8')).toBe('b'.repeat(4097));
    expect(statSync(e.artifact_path).mode & 0o777).toBe(0o600);
    expect(Object.keys(e)).toEqual([
      'id',
      'brief',
      'brief_id',
      'ac_id',
      'task_id',
      'type',
      'text',
      'artifact_path',
      'size_bytes',
      'sha256',
      'created_by_agent',
      'handoff_id',
      'receipt_id',
      'contract_id',
      'created_at',
    ]);
  });

  it('--text is measured in UTF-8 bytes', () => {
    const home = withBrief();
    expect(add(home, ['--ac', 'AC-1', '--text', 'é'.repeat(2048)]).json.storage).toBe('inline');
    expect(add(home, ['--ac', 'AC-1', '--text', `${'é'.repeat(2048)}!`]).json.storage).toBe('blob');
  });

  it('--artifact-file: 4096 UTF-8 bytes inline (source path not recorded), 4097 a blob keeping the suffix', () => {
    const home = withBrief();
    const r1 = add(home, ['--ac', 'AC-1', '--artifact-file', file(home, 'a.log', 'c'.repeat(4096))]);
    expect(r1.json).toMatchObject({
      storage: 'inline',
      evidence: { text: 'c'.repeat(4096), artifact_path: null, size_bytes: 4096 },
    });
    const big = Buffer.from('d'.repeat(4097));
    const r2 = add(home, ['--ac', 'AC-1', '--artifact-file', file(home, 'b.log', big)]);
    expect(r2.json).toMatchObject({ storage: 'blob', evidence: { size_bytes: 4097, sha256: sha(big) } });
    expect(r2.json.evidence.artifact_path).toMatch(/\.log$/);
    expect(readFileSync(r2.json.evidence.artifact_path)).toEqual(big);
    expect(readFileSync(join(home, 'b.log'))).toEqual(big);
  });

  it('a small binary file is a blob; a BOM stays content; an empty file is inline', () => {
    const home = withBrief();
    const bin = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);
    const r = add(home, ['--ac', 'AC-1', '--artifact-file', file(home, 'shot.PNG', bin)]);
    expect(r.json).toMatchObject({ storage: 'blob', evidence: { size_bytes: 6, sha256: sha(bin) } });
    expect(r.json.evidence.artifact_path).toMatch(/\.PNG$/);
    const bom = Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]);
    expect(add(home, ['--ac', 'AC-1', '--artifact-file', file(home, 'bom.txt', bom)]).json).toMatchObject({
      storage: 'inline',
      evidence: { text: '\ufeffhi', size_bytes: 5, sha256: sha(bom) },
    });
    expect(add(home, ['--ac', 'AC-1', '--artifact-file', file(home, 'empty.txt', '')]).json).toMatchObject({
      storage: 'inline',
      evidence: { text: '', size_bytes: 0 },
    });
  });

  it('row 15: a hostile suffix never reaches the path: stored as .bin', () => {
    const home = withBrief();
    for (const name of ['x.$(rm -rf ~)', `x.${'a'.repeat(40)}`, 'noext', '.bashrc']) {
      const r = add(home, ['--ac', 'AC-1', '--artifact-file', file(home, name, Buffer.alloc(5000, 1))]);
      expect(r.code, r.stderr).toBe(0);
      expect(basename(r.json.evidence.artifact_path)).toMatch(/^[0-9a-f-]{36}\.bin$/);
    }
  });

  it('task, created-by, human output; a brief without ACs accepts any slug ac', () => {
    const home = withBrief([]);
    const r = run(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'anything',
      '--type',
      'url',
      '--text',
      'https://x',
      '--task',
      'T-42',
      '--created-by',
      'me',
      '--workspace',
      'ws',
    ]);
    expect(r.stdout).toMatch(
      /^Evidence recorded: id=1 brief=pay ac=anything type=url storage=inline size=9 sha256=[0-9a-f]{12}\n$/,
    );
    const blob = run(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'x',
      '--type',
      'text',
      '--text',
      'z'.repeat(5000),
      '--workspace',
      'ws',
    ]);
    expect(blob.stdout).toMatch(/storage=blob size=5000 sha256=[0-9a-f]{12} path=\/.*\.txt\n$/);
    const json = run(home, ['evidence', 'list', '--brief', 'pay', ...W]).json.evidence[0];
    expect(json).toMatchObject({
      task_id: 'T-42',
      created_by_agent: 'me',
      type: 'url',
      handoff_id: null,
      receipt_id: null,
    });
  });

  it('concurrent deposits never collide', async () => {
    const home = withBrief();
    const rs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        runAsync(home, [
          'evidence',
          'add',
          '--brief',
          'pay',
          '--ac',
          'AC-1',
          '--type',
          'text',
          '--text',
          `${i}`.repeat(5000),
          ...W,
        ]),
      ),
    );
    expect(rs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(new Set(rs.map((r) => r.json.evidence.artifact_path)).size).toBe(6);
    expect(counts(home).evidence).toBe(6);
  });
});

describe('evidence add: refusals write nothing', () => {
  const refuse = (home: string, args: string[], code: string, exit: number, opts = {}): void => {
    const before = state(home);
    expectRefusal(run(home, ['evidence', 'add', ...args], opts), code, exit);
    expect(state(home)).toEqual(before);
  };
  const base = ['--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'x'.repeat(5000)];

  it.each([
    ['USAGE', ['--ac', 'AC-1', '--type', 'text', '--text', 'x']],
    ['USAGE', ['--brief', 'pay', '--type', 'text', '--text', 'x']],
    ['USAGE', ['--brief', 'pay', '--ac', 'AC-1', '--text', 'x']],
    ['USAGE', ['--brief', 'pay', '--ac', 'AC-1', '--type', 'TEXT', '--text', 'x']],
    ['USAGE', ['--brief', 'pay', '--ac', 'AC-1', '--type', 'text']],
    ['USAGE', ['--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'x', '--artifact-file', '/etc/hostname']],
    ['USAGE', ['--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', '  ']],
    ['USAGE', [...base, '--task', ' ']],
    ['USAGE', [...base, '--created-by', '']],
  ])('%s (exit 2): %j', (code, args) => refuse(withBrief(), [...args, ...W], code, 2));

  it.each(['../../../escape', '..', 'a/b', 'a\\b', ''])('row 1: --ac %j -> UNSAFE_SLUG', (ac) => {
    refuse(withBrief(), ['--brief', 'pay', '--ac', ac, '--type', 'text', '--text', 'x', ...W], 'UNSAFE_SLUG', 2);
  });

  it.each(['../x', '..', '.hidden', 'a..b', 'a/b', 'x'.repeat(65), 'a b', 'a\n', 'é'])(
    'row 2: --brief %j -> UNSAFE_SLUG',
    (brief) => {
      refuse(withBrief(), ['--brief', brief, '--ac', 'AC-1', '--type', 'text', '--text', 'x', ...W], 'UNSAFE_SLUG', 2);
    },
  );

  it('row 3: --workspace ../x -> UNSAFE_SLUG; a derived "My Project" folder is made into the slug My-Project', () => {
    const home = withBrief();
    refuse(home, [...base, '--workspace', '../x', '--json'], 'UNSAFE_SLUG', 2);
    const project = join(home, 'My Project');
    mkdirSync(project);
    refuse(home, [...base, '--json'], 'BRIEF_NOT_FOUND', 3, { cwd: project });
    const r = run(home, ['evidence', 'add', ...base, '--json'], { cwd: project });
    expect(r.json.workspace).toBe('My-Project');
    expectHumanRefusal(run(home, ['evidence', 'add', ...base], { cwd: project }), 3);
  });

  it('row 4: <root>/evidence/ws -> a folder elsewhere: EVIDENCE_PATH_ESCAPE, nothing written outside or inside', () => {
    const home = withBrief();
    const elsewhere = mkdtempSync(join(tmpdir(), 'handoff-elsewhere-'));
    mkdirSync(join(home, 'evidence'));
    symlinkSync(elsewhere, join(home, 'evidence', 'ws'));
    const outside = snapshot(elsewhere);
    refuse(home, [...base, ...W], 'EVIDENCE_PATH_ESCAPE', 1);
    expect(snapshot(elsewhere)).toEqual(outside);
    expect(outside).toEqual({});
  });

  it("row 4: …/<brief> -> another brief's folder: EVIDENCE_PATH_ESCAPE, the other brief untouched", () => {
    const home = withBrief();
    addBrief(home, 'other', ['AC-1']);
    expect(
      run(home, [
        'evidence',
        'add',
        '--brief',
        'other',
        '--ac',
        'AC-1',
        '--type',
        'text',
        '--text',
        'o'.repeat(5000),
        ...W,
      ]).code,
    ).toBe(0);
    symlinkSync(join(home, 'evidence', 'ws', 'other'), join(home, 'evidence', 'ws', 'pay'));
    refuse(home, [...base, ...W], 'EVIDENCE_PATH_ESCAPE', 1);
    refuse(
      home,
      [
        '--brief',
        'pay',
        '--ac',
        'AC-1',
        '--type',
        'file',
        '--artifact-file',
        file(home, 'big.bin', Buffer.alloc(9000)),
        ...W,
      ],
      'EVIDENCE_PATH_ESCAPE',
      1,
    );
  });

  it('row 4: an inline deposit never touches the evidence tree, so a symlink there does not matter', () => {
    const home = withBrief();
    mkdirSync(join(home, 'evidence'));
    symlinkSync(tmpdir(), join(home, 'evidence', 'ws'));
    expect(
      run(home, ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'text', '--text', 'short', ...W]).code,
    ).toBe(0);
  });

  it('row 13: a missing file, a dangling link and a path below a file -> UNREADABLE_INPUT', () => {
    const home = withBrief();
    const links = mkdtempSync(join(tmpdir(), 'handoff-links-')); // outside the home: the snapshot helper stats every entry
    symlinkSync(join(links, 'nowhere'), join(links, 'dangling'));
    file(home, 'plain', 'x');
    for (const p of [join(home, 'missing.txt'), join(links, 'dangling'), join(home, 'plain', 'x')]) {
      refuse(
        home,
        ['--brief', 'pay', '--ac', 'AC-1', '--type', 'file', '--artifact-file', p, ...W],
        'UNREADABLE_INPUT',
        2,
      );
    }
  });

  it('row 14: a directory, FIFO, socket, /dev/zero, /dev/stdin, /dev/urandom -> INPUT_NOT_REGULAR, never read', async () => {
    const home = withBrief();
    // Outside the home: the snapshot helper reads every file it walks, and reading a FIFO would block.
    const specials = mkdtempSync(join(tmpdir(), 'handoff-specials-'));
    mkdirSync(join(specials, 'dir'));
    execFileSync('mkfifo', [join(specials, 'fifo')]);
    const sock = join(specials, 'sock');
    const server = createServer();
    await new Promise<void>((res) => server.listen(sock, res));
    try {
      for (const p of [
        join(specials, 'dir'),
        join(specials, 'fifo'),
        sock,
        '/dev/zero',
        '/dev/stdin',
        '/dev/urandom',
      ]) {
        const before = state(home);
        const r = run(
          home,
          ['evidence', 'add', '--brief', 'pay', '--ac', 'AC-1', '--type', 'file', '--artifact-file', p, ...W],
          { timeout: 120_000 },
        );
        expectRefusal(r, 'INPUT_NOT_REGULAR', 2);
        expect(state(home)).toEqual(before);
      }
    } finally {
      server.close();
    }
  });

  it('row 19: an undeclared ac -> UNKNOWN_AC (exit 1) with "did you mean" for a case-only difference', () => {
    const home = withBrief(['AC-1', 'AC-2']);
    const before = state(home);
    const r = run(home, [
      'evidence',
      'add',
      '--brief',
      'pay',
      '--ac',
      'ac-1',
      '--type',
      'text',
      '--text',
      'x'.repeat(5000),
      ...W,
    ]);
    expectRefusal(r, 'UNKNOWN_AC', 1);
    expect(r.json.error).toContain('did you mean "AC-1"');
    expect(r.json.declared).toEqual(['AC-1', 'AC-2']);
    expect(state(home)).toEqual(before);
    refuse(home, ['--brief', 'pay', '--ac', 'AC-3', '--type', 'text', '--text', 'x', ...W], 'UNKNOWN_AC', 1);
  });

  it('row 19: BRIEF_NOT_FOUND (exit 3) without a DB (none created), for another workspace, for a case variant', () => {
    const home = tempHome();
    refuse(home, [...base, ...W], 'BRIEF_NOT_FOUND', 3);
    expect(snapshot(home)).toEqual({});
    addBrief(home, 'pay', ['AC-1'], 'other');
    refuse(home, [...base, ...W], 'BRIEF_NOT_FOUND', 3);
    addBrief(home, 'Pay', ['AC-1']);
    refuse(home, [...base, ...W], 'BRIEF_NOT_FOUND', 3);
  });

  it('the row insert failing after the blob was written: store error exit 4, evidence tree byte-identical', () => {
    const home = withBrief();
    expect(add(home, ['--ac', 'AC-1', '--text', 'k'.repeat(5000)]).code).toBe(0);
    const db = new (loadSqlite())(join(home, 'handoff.db'));
    db.exec(
      "CREATE TRIGGER evidence_forced_failure BEFORE INSERT ON evidence BEGIN SELECT RAISE(ABORT, 'forced failure'); END",
    );
    db.close();
    const before = { tree: evidenceTree(home), counts: counts(home) };
    for (const flags of [
      ['--text', 'n'.repeat(5000)],
      ['--artifact-file', file(home, 'big.bin', Buffer.alloc(9000, 3))],
    ]) {
      const r = add(home, ['--ac', 'AC-1', ...flags]);
      expectRefusal(r, 'STORE_UNREADABLE', 4);
      expect(r.json.error).toContain('forced failure');
    }
    const fresh = withBrief(['AC-9']);
    const db2 = new (loadSqlite())(join(fresh, 'handoff.db'));
    db2.exec(
      "CREATE TRIGGER evidence_forced_failure BEFORE INSERT ON evidence BEGIN SELECT RAISE(ABORT, 'forced failure'); END",
    );
    db2.close();
    expectRefusal(
      run(fresh, [
        'evidence',
        'add',
        '--brief',
        'pay',
        '--ac',
        'AC-9',
        '--type',
        'text',
        '--text',
        'f'.repeat(5000),
        ...W,
      ]),
      'STORE_UNREADABLE',
      4,
    );
    expect(evidenceTree(fresh)).toEqual({});
    expect({ tree: evidenceTree(home), counts: counts(home) }).toEqual(before);
  });
});
