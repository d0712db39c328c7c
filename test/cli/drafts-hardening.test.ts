/**
 * Regressions from a review of the draft verbs: deep nesting (MAX_JSON_DEPTH), `view --field` on an adoptable
 * contract, quoted paths in refusal messages, symlinks at a draft's name, and `validate` of a closed row without a
 * draft. Each case: its exit code, its code, and nothing written.
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/json.js';
import { loadSqlite } from '../../src/store/sqlite.js';
import { run, tempHome, type RunResult } from '../helpers/cli.js';
import { closeDraft, dispatch, draftPathOf, draftsDirOf, initDraft, readDraftJson } from '../helpers/drafts.js';

/** Every entry below `dir` by lstat (links are not followed, so a dangling link is listed, not an error). */
function lsnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[r] = `link -> ${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[`${r}/`] = 'dir';
        walk(p, r);
      } else out[r] = `${st.mtimeMs} ${readFileSync(p).toString('base64')}`;
    }
  };
  walk(dir, '');
  return out;
}

/** Runs `args` and asserts nothing under `home` changed (links included). */
function runUnchanged(home: string, args: string[], input?: string): RunResult {
  const before = lsnapshot(home);
  const r = run(home, args, input === undefined ? {} : { input });
  expect(lsnapshot(home), `${args.join(' ')} wrote something`).toEqual(before);
  return r;
}

function expectCode(r: RunResult, exit: number, code: string): void {
  expect({ exit: r.code, code: r.json?.code }, `${r.stdout} ${r.stderr}`).toEqual({ exit, code });
  expect(r.stderr).not.toMatch(/Maximum call stack|\n\s+at /);
}

const nestedArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObject = (depth: number, leaf = '1'): string => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

describe(`deep nesting is refused with a named code (MAX_JSON_DEPTH = ${MAX_JSON_DEPTH}), never a crash`, () => {
  it('set/add with a 3000-deep VALUE → VALUE_NOT_REPRESENTABLE, exit 2, nothing written', () => {
    const home = tempHome();
    const id = initDraft(home);
    for (const verb of ['set', 'add']) {
      const r = runUnchanged(home, ['contract', verb, 'memory_delta', nestedArray(3000), '--draft-id', id, '--json']);
      expectCode(r, 2, 'VALUE_NOT_REPRESENTABLE');
      expect(r.json.error).toMatch(/VALUE nests deeper than 512 levels/);
    }
  });

  it('fill --json-file with a 5000-deep patch → VALUE_NOT_REPRESENTABLE, exit 2, nothing written', () => {
    const home = tempHome();
    const id = initDraft(home);
    const patchFile = join(tempHome(), 'patch.json');
    writeFileSync(patchFile, `{"memory_delta":${nestedObject(5000)}}`);
    const r = runUnchanged(home, ['contract', 'fill', '--json-file', patchFile, '--draft-id', id]);
    expectCode(r, 2, 'VALUE_NOT_REPRESENTABLE');
    expect(r.json.error).toMatch(/the patch nests deeper/);
  });

  it('a FIELD of 5000 segments → INVALID_FIELD_PATH, exit 2, for set, add and view --field', () => {
    const home = tempHome();
    const id = initDraft(home);
    const field = `memory_delta${'.a'.repeat(5000)}`;
    for (const args of [
      ['set', field, '1'],
      ['add', field, '1'],
      ['view', '--field', field],
    ]) {
      const r = runUnchanged(home, ['contract', ...args, '--draft-id', id, '--json']);
      expectCode(r, 2, 'INVALID_FIELD_PATH');
      expect(r.json.error).toMatch(/5001 segments/);
    }
  });

  it('the limit is on the resulting envelope: 512 levels are written, 513 are refused (exit 2, nothing written)', () => {
    const home = tempHome();
    const id = initDraft(home);
    const path512 = `memory_delta${'.a'.repeat(MAX_JSON_DEPTH - 1)}`; // 512 segments: a scalar lands at depth 512
    expect(run(home, ['contract', 'set', path512, '1', '--draft-id', id, '--json']).code).toBe(0);
    // A VALUE within the limit that the path pushes beyond it.
    const over = runUnchanged(home, ['contract', 'set', path512, '{}', '--draft-id', id, '--json']);
    expectCode(over, 2, 'VALUE_NOT_REPRESENTABLE');
    expect(over.json.error).toMatch(/envelope after this write/);
    // A 512-deep VALUE is accepted as a VALUE, but under memory_delta the envelope would be 513 deep.
    const deepValue = runUnchanged(home, [
      'contract',
      'set',
      'memory_delta',
      nestedArray(MAX_JSON_DEPTH),
      '--draft-id',
      id,
      '--json',
    ]);
    expectCode(deepValue, 2, 'VALUE_NOT_REPRESENTABLE');
    expect(
      run(home, ['contract', 'set', 'memory_delta', nestedArray(MAX_JSON_DEPTH - 1), '--draft-id', id, '--json']).code,
    ).toBe(0);
    expect(run(home, ['contract', 'view', '--draft-id', id, '--json']).code).toBe(0);
  });

  it.each([
    ['100,000 deep', 100_000],
    ['one level over the limit', MAX_JSON_DEPTH],
  ])(
    'a hand-edited draft nested %s → DRAFT_UNREADABLE (exit 3) naming the file, for every verb that reads it',
    (_, depth) => {
      const home = tempHome();
      const id = initDraft(home);
      const file = draftPathOf(home, id);
      // memory_delta at depth 2 holding `depth` levels: the envelope is depth + 1 deep.
      writeFileSync(file, `{"memory_delta":${nestedObject(depth)}}\n`);
      for (const args of [
        ['set', 'report_prose', 'x', '--draft-id', id, '--json'],
        ['add', 'evidence_report.commands_run', 'x', '--draft-id', id, '--json'],
        ['fill', '--json', '{}', '--draft-id', id],
        ['view', '--draft-id', id, '--json'],
        ['view', '--json'],
        ['view', '--field', 'memory_delta', '--draft-id', id, '--json'],
        ['validate', '--draft-id', id, '--json'],
        ['validate', '--json'],
        ['finalize', '--draft-id', id, '--workspace', 'ws', '--json'],
      ]) {
        const r = runUnchanged(home, ['contract', ...args]);
        expectCode(r, 3, 'DRAFT_UNREADABLE');
        expect(r.json.path).toBe(file);
        expect(r.json.error).toContain(file);
        expect(r.json.error).toMatch(/nests deeper than 512 levels/);
      }
    },
  );

  it('an open row whose stored envelope is deeper than the limit is not adopted (view, set: exit 2, nothing written)', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    rmSync(draftPathOf(home, id));
    const deep = `{"agent_status":{},"evidence_report":{},"memory_delta":${nestedObject(600)}}`;
    const db = new (loadSqlite())(join(home, 'handoff.db'));
    try {
      db.prepare('UPDATE handoffs SET raw_handoff_json = ? WHERE contract_id = ?').run(deep, id);
    } finally {
      db.close();
    }
    for (const args of [
      ['view', '--draft-id', id, '--json'],
      ['set', 'report_prose', 'x', '--draft-id', id, '--json'],
    ]) {
      expectCode(runUnchanged(home, ['contract', ...args]), 2, 'VALUE_NOT_REPRESENTABLE');
    }
  });

  it('validate --file judges any JSON value: a 5000-deep array → MISSING_FIELD agent_contract_handoff (exit 1)', () => {
    const home = tempHome();
    const r = runUnchanged(home, ['contract', 'validate', '--file', '-', '--json'], nestedArray(5000));
    expect(r.code, r.stderr).toBe(1);
    expect(r.json.codes).toEqual(['MISSING_FIELD']);
    expect(r.json.errors[0].path).toBe('agent_contract_handoff');
    // Large inputs go through a file: stdin is covered above with an input small enough for one pipe read.
    const file = join(tempHome(), 'deep.json');
    writeFileSync(file, nestedObject(100_000));
    const human = runUnchanged(home, ['contract', 'validate', '--file', file]);
    expect(human.code).toBe(1);
    expect(human.stderr).not.toMatch(/Maximum call stack|INTERNAL/);
  });

  it('validate --file of a valid envelope carrying a 100,000-deep open value judges it (no crash)', () => {
    const home = tempHome();
    const id = initDraft(home);
    const envelope = readFileSync(draftPathOf(home, id), 'utf8').trimEnd();
    const text = `${envelope.slice(0, -1)},"memory_delta":${nestedObject(100_000)}}`;
    const file = join(tempHome(), 'envelope.json');
    writeFileSync(file, text);
    const r = runUnchanged(home, ['contract', 'validate', '--file', file, '--json']);
    expect([r.code, r.json?.status], r.stdout + r.stderr).toEqual([0, 'ok']);
  });
});

describe('view --field on a contract that needs adoption (a non-zero exit writes nothing)', () => {
  it('a missing field → FIELD_NOT_FOUND, exit 3, and no draft materialized', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    rmSync(draftPathOf(home, id));
    const r = runUnchanged(home, [
      'contract',
      'view',
      '--field',
      'evidence_report.no_such_key',
      '--draft-id',
      id,
      '--json',
    ]);
    expectCode(r, 3, 'FIELD_NOT_FOUND');
    expect(r.stderr).not.toMatch(/\[ADOPTED\]/);
  });

  it('a present field is shown and the draft is adopted', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    rmSync(draftPathOf(home, id));
    const r = run(home, ['contract', 'view', '--field', 'agent_status.agent_state', '--draft-id', id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({ status: 'ok', draft_id: id, field: 'agent_status.agent_state', value: 'IN_PROGRESS' });
    expect(r.stderr).toMatch(/^\[ADOPTED\] /);
    expect(readDraftJson(home, id).agent_status.agent_state).toBe('IN_PROGRESS');
  });
});

describe('refusal messages JSON-quote the path (a FIELD with a newline stays unambiguous)', () => {
  const key = 'memory_delta.a\nb';
  let home = '';
  let id = '';
  beforeAll(() => {
    home = tempHome();
    id = initDraft(home);
    expect(run(home, ['contract', 'set', key, '5', '--draft-id', id]).code).toBe(0);
  });

  it.each([
    ['NOT_A_LIST', 1, ['add', key, 'x'], key],
    ['PATH_NOT_OBJECT', 1, ['set', `${key}.c`, 'x'], key],
    ['FIELD_NOT_FOUND', 3, ['view', '--field', 'memory_delta.x\ny'], 'memory_delta.x\ny'],
  ] as const)('%s', (code, exit, args, quoted) => {
    const r = runUnchanged(home, ['contract', ...args, '--draft-id', id, '--json']);
    expectCode(r, exit, code);
    expect(r.json.error).toContain(JSON.stringify(quoted));
    expect(r.json.error).not.toContain('\n');
  });
});

describe('a symlink at drafts/<id>.json that is not a readable JSON object', () => {
  const ID = 'a0123456789abcdef.0123456789ab';
  const kinds: [string, (home: string) => string][] = [
    ['a dangling link', (home) => join(home, 'nowhere.json')],
    [
      'a link to a directory',
      (home) => {
        const dir = join(home, 'somedir');
        mkdirSync(dir);
        return dir;
      },
    ],
  ];

  it.each(kinds)(
    '%s → DRAFT_UNREADABLE (exit 3) for every reader and writer, DRAFT_EXISTS for init; never replaced',
    (_, target) => {
      const home = tempHome();
      mkdirSync(draftsDirOf(home), { mode: 0o700 });
      const link = draftPathOf(home, ID);
      symlinkSync(target(home), link);
      for (const args of [
        ['set', 'report_prose', 'x', '--draft-id', ID, '--json'],
        ['add', 'evidence_report.commands_run', 'x', '--draft-id', ID, '--json'],
        ['fill', '--json', '{}', '--draft-id', ID],
        ['view', '--draft-id', ID, '--json'],
        ['validate', '--draft-id', ID, '--json'],
        ['finalize', '--draft-id', ID, '--workspace', 'ws', '--json'],
      ]) {
        const r = runUnchanged(home, ['contract', ...args]);
        expectCode(r, 3, 'DRAFT_UNREADABLE');
        expect(r.json.path).toBe(link);
      }
      expectCode(runUnchanged(home, ['contract', 'init', '--draft-id', ID, '--json']), 1, 'DRAFT_EXISTS');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
    },
  );

  it.each(kinds)('%s in place of a dispatched draft is never adopted over (view, set)', (_, target) => {
    const home = tempHome();
    const { id } = dispatch(home);
    const link = draftPathOf(home, id);
    rmSync(link);
    symlinkSync(target(home), link);
    for (const args of [
      ['view', '--draft-id', id, '--json'],
      ['view', '--field', 'agent_status', '--draft-id', id, '--json'],
      ['set', 'report_prose', 'x', '--draft-id', id, '--json'],
    ]) {
      const r = runUnchanged(home, ['contract', ...args]);
      expectCode(r, 3, 'DRAFT_UNREADABLE');
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe('validate --draft-id of a row without a draft file: the hint depends on the row state', () => {
  it('a closed row: view shows it read-only, a write opens a continuation (never "materializes")', () => {
    const home = tempHome();
    const id = initDraft(home);
    closeDraft(home, id);
    rmSync(draftPathOf(home, id));
    const r = runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json']);
    expectCode(r, 3, 'DRAFT_NOT_FOUND');
    expect(r.json.error).not.toMatch(/materializ/);
    expect(r.json.error).toMatch(/BLOCKED/);
    expect(r.json.error).toMatch(/read-only/);
    expect(r.json.error).toMatch(/continuation/);
  });

  it('an open row: view or the first write materializes it', () => {
    const home = tempHome();
    const { id } = dispatch(home);
    rmSync(draftPathOf(home, id));
    const r = runUnchanged(home, ['contract', 'validate', '--draft-id', id, '--json']);
    expectCode(r, 3, 'DRAFT_NOT_FOUND');
    expect(r.json.error).toMatch(/view --draft-id .* or the first write materializes it/);
  });
});
