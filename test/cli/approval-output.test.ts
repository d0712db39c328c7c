/**
 * What approval output shows: `approval show` prints the whole content with control and format characters escaped
 * (raw in --json); `decide` repeats the fingerprint and the first lines; other human outputs cut at 20 lines or 2,000
 * characters and name `approval show`. The content is limited to half of HANDOFF_MAX_ENVELOPE_BYTES as JSON text.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, snapshot, tempHome } from '../helpers/cli.js';
import { initDraft } from '../helpers/drafts.js';
import { runJson } from '../helpers/store-cli.js';

const HOSTILE = 'rm -rf build\n# \u202eevil\u202c \u200b\u2066x\u2069\u001b[2J\u0007\r\u0085 done';
const sha = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

function request(home: string, content: string, draftId?: string): string {
  const file = join(home, 'content.txt');
  writeFileSync(file, content);
  const r = runJson(home, ['approval', 'request', '--content-file', file, ...(draftId ? ['--draft-id', draftId] : [])]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json.approval_id as string;
}

/** No raw control (but the line break) or format character reaches the terminal. */
// eslint-disable-next-line no-control-regex -- the control characters are what the test looks for
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;

describe('approval show', () => {
  it('human: the whole content, escaped; --json: raw, with fingerprint, status and the fill input', () => {
    const home = tempHome();
    const id = initDraft(home);
    const ap = request(home, HOSTILE, id);
    const h = run(home, ['approval', 'show', ap]);
    expect(h.code).toBe(0);
    expect(h.stdout).not.toMatch(HIDDEN);
    for (const cp of [
      '<U+202E>',
      '<U+202C>',
      '<U+200B>',
      '<U+2066>',
      '<U+2069>',
      '<U+001B>',
      '<U+0007>',
      '<U+000D>',
      '<U+0085>',
    ])
      expect(h.stdout).toContain(cp);
    expect(h.stdout).toContain('| rm -rf build\n');
    expect(h.stdout).toContain(sha(HOSTILE));
    expect(h.stdout).toContain(`handoff contract fill --draft-id ${id} --json-file - <<'HANDOFF_APPROVAL'`);
    const j = runJson(home, ['approval', 'show', ap]).json;
    expect(j.approval).toMatchObject({
      id: ap,
      exact_content: HOSTILE,
      fingerprint: sha(HOSTILE),
      approval_status: 'pending',
      decided_at: null,
    });
    // The fill input parses back to the exact content, and shows no hidden character either.
    expect(JSON.parse(j.fill_input)).toEqual({ approval_request: { exact_content: HOSTILE, approval_id: ap } });
    expect(j.fill_input).not.toMatch(HIDDEN);
    expect(j.fill_command).toBe(`handoff contract fill --draft-id ${id} --json-file -`);
  });

  it('approval list: the table shows the cut content escaped too; decide --by is escaped in show', () => {
    const home = tempHome();
    const ap = request(home, HOSTILE);
    expect(run(home, ['approval', 'decide', ap, '--decision', 'approved', '--by', 'eve\u202e\u001b[2J']).code).toBe(0);
    const list = run(home, ['approval', 'list']);
    expect(list.stdout).toContain('rm -rf build');
    expect(list.stdout).not.toMatch(HIDDEN);
    const show = run(home, ['approval', 'show', ap]);
    expect(show.stdout).toContain('by eve<U+202E>');
    expect(show.stdout).not.toMatch(HIDDEN);
  });

  it('prints who decided when; a long content whole', () => {
    const home = tempHome();
    const long = Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\n');
    const ap = request(home, long);
    expect(
      run(home, ['approval', 'decide', ap, '--decision', 'rejected', '--by', 'bob', '--note', 'not now']).code,
    ).toBe(0);
    const h = run(home, ['approval', 'show', ap]).stdout;
    expect(h).toMatch(/decided: rejected by bob at \d{4}-\d\d-\d\dT.*; note: not now/);
    expect(h).toContain('| line 59');
    expect(h).not.toContain('HANDOFF_APPROVAL');
  });

  it('unknown id: APPROVAL_NOT_FOUND (exit 3); malformed: USAGE (exit 2); no store created', () => {
    const home = tempHome();
    const before = snapshot(home);
    const r = runJson(home, ['approval', 'show', `P-${'0'.repeat(32)}`]);
    expect([r.code, r.json.code]).toEqual([3, 'APPROVAL_NOT_FOUND']);
    const bad = runJson(home, ['approval', 'show', 'P-xyz']);
    expect([bad.code, bad.json.code]).toEqual([2, 'USAGE']);
    expect(snapshot(home)).toEqual(before);
  });
});

describe('approval decide shows what is decided', () => {
  it("the fingerprint and the first lines, escaped; approved: the executing turn's fill input", () => {
    const home = tempHome();
    const id = initDraft(home);
    const ap = request(home, HOSTILE, id);
    const d = run(home, ['approval', 'decide', ap, '--decision', 'approved', '--by', 'alice']);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain(`fingerprint: ${sha(HOSTILE)}`);
    expect(d.stdout).toContain('| rm -rf build');
    expect(d.stdout).not.toMatch(HIDDEN);
    expect(d.stdout).toContain(`handoff contract fill --draft-id ${id} --json-file - <<'HANDOFF_APPROVAL'`);
    const again = runJson(home, ['approval', 'decide', ap, '--decision', 'approved']).json;
    expect(again).toMatchObject({
      changed: false,
      fingerprint: sha(HOSTILE),
      fill_command: `handoff contract fill --draft-id ${id} --json-file -`,
    });
    expect(JSON.parse(again.fill_input).approval_request.exact_content).toBe(HOSTILE);
  });

  it.each([
    ['more than 20 lines', Array.from({ length: 25 }, (_, i) => `step ${i}`).join('\n'), 'step 19', 'step 20'],
    ['more than 2,000 characters', `${'a'.repeat(1990)}0123456789XYZ`, '0123456789', 'XYZ'],
  ])('%s: cut, ending with the size and approval show; --json complete', (_what, content, last, gone) => {
    const home = tempHome();
    const ap = request(home, content);
    const d = run(home, ['approval', 'decide', ap, '--decision', 'approved']);
    expect(d.stdout).toContain(last);
    expect(d.stdout).not.toContain(gone);
    expect(d.stdout).toContain(`… (${Buffer.byteLength(content)} bytes; handoff approval show ${ap})`);
    const req = run(home, ['approval', 'request', '--content', content]);
    expect(req.stdout).not.toContain(gone);
    expect(req.stdout).toContain('handoff approval show');
    const list = runJson(home, ['approval', 'list']).json;
    expect(list.approvals.map((a: any) => a.exact_content)).toContain(content);
    expect(runJson(home, ['approval', 'show', ap]).json.approval.exact_content).toBe(content);
  });
});

describe('the approval content limit', () => {
  it('over half of HANDOFF_MAX_ENVELOPE_BYTES as JSON-escaped text: ENVELOPE_TOO_LARGE (exit 2), nothing written', () => {
    const home = tempHome();
    const env = { HANDOFF_MAX_ENVELOPE_BYTES: '2000' };
    // 500 quotes are 1,000 bytes escaped: at the limit. One more character is over it.
    expect(runJson(home, ['approval', 'request', '--content', '"'.repeat(500)], env).code).toBe(0);
    const before = snapshot(home);
    for (const content of ['"'.repeat(501), `${'"'.repeat(500)}x`, 'x\n'.repeat(334), 'é'.repeat(501)]) {
      const r = runJson(home, ['approval', 'request', '--content', content], env);
      expect([r.code, r.json.code, r.json.limit]).toEqual([2, 'ENVELOPE_TOO_LARGE', 1000]);
    }
    expect(snapshot(home)).toEqual(before);
  });
});
