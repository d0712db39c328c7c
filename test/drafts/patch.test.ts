import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../src/drafts/patch.js';
import type { JsonObject } from '../../src/envelope/vocabulary.js';
import { caught } from '../helpers/store.js';

const ID = 'a0123456789abcdef.0123456789ab';
const base = (): JsonObject => ({
  agent_status: { agent_state: 'IN_PROGRESS', agent_id: 'a0123456789abcdef', pending_steps: ['a'], next_action: 'x' },
  evidence_report: { files_checked: ['a.ts', 'b.ts'], open_gaps: [] },
  approval_request: { exact_content: 'DROP TABLE t;' },
  _contract_tag: 'tag',
});

describe('applyMergePatch (RFC 7396 through json-merge-patch)', () => {
  it('null removes a key, objects merge, arrays replace whole (a populated list included)', () => {
    const b = base();
    const out = applyMergePatch(
      b,
      { approval_request: null, evidence_report: { files_checked: ['c.ts'] }, work_phase: 'executing' },
      ID,
    );
    expect(out).toEqual({
      agent_status: b.agent_status,
      evidence_report: { files_checked: ['c.ts'], open_gaps: [] },
      _contract_tag: 'tag',
      work_phase: 'executing',
    });
    expect(b).toEqual(base());
  });

  it('an unchanged agent_id or system key may be re-sent', () => {
    const out = applyMergePatch(
      base(),
      { agent_status: { agent_id: 'a0123456789abcdef', next_action: 'y' }, _contract_tag: 'tag' },
      ID,
    );
    expect(out.agent_status).toMatchObject({ agent_id: 'a0123456789abcdef', next_action: 'y' });
  });

  it.each([
    [{ agent_status: { agent_id: 'a1111111111111111' } }, 'agent_status.agent_id'],
    [{ agent_status: { agent_id: null } }, 'agent_status.agent_id'],
    [{ agent_status: null }, 'agent_status.agent_id'],
    [{ agent_status: 'x' }, 'agent_status.agent_id'],
    [{ _contract_tag: null }, '_contract_tag'],
    [{ backstop: true }, 'backstop'],
    [JSON.parse('{"evidence_report":{"__proto__":{"polluted":1}}}'), 'evidence_report.__proto__'],
    [{ a: [{ constructor: 1 }] }, 'a[0].constructor'],
    [{ prototype: 1 }, 'prototype'],
  ])('PATCH_FORBIDDEN (exit 1) for %j at %s; the base is untouched', (patch, path) => {
    const b = base();
    const e = caught(() => applyMergePatch(b, patch as JsonObject, ID));
    expect(e).toMatchObject({ code: 'PATCH_FORBIDDEN', exit: 1, data: { draft_id: ID, path } });
    expect(b).toEqual(base());
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
