/**
 * The append never opens a continuation and never lands on another contract: a contract that was
 * closed and continued while the command ran keeps the receipt; the append is skipped, the new link is untouched.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { freshHome, hf, newDraft, NODE } from '../helpers/receipts-cli.js';

describe('evidence run: the contract was closed and continued while the command ran', () => {
  it('the receipt stays on the addressed contract, the append is skipped, the continuation link is not written', () => {
    const home = freshHome();
    const d = newDraft(home);
    const close = { agent_status: { agent_state: 'BLOCKED', next_action: 'wait' } };
    expect(hf(home, ['contract', 'fill', '--draft-id', d, '--json', JSON.stringify(close)]).code).toBe(0);
    const script = `${NODE} ${BIN} contract finalize --draft-id ${d} --json >/dev/null && ${NODE} ${BIN} contract add evidence_report.commands_run other --draft-id ${d} --json >/dev/null 2>&1`;
    const r = hf(home, ['evidence', 'run', '--json', '--draft-id', d, '--', 'sh', '-c', script]);
    expect(r.code, r.stderr).toBe(0);
    const rc = r.json.receipt;
    expect(rc.contract_id).toBe(d);
    expect(r.stderr).toContain(`[RECEIPT NOT APPENDED: contract closed] ${rc.receipt_id} ${d}`);
    const chain = hf(home, ['contract', 'chain', '--contract-id', d, '--json']).json;
    expect(chain.links).toBe(2);
    const link = chain.live_contract_id as string;
    const linkDraft = JSON.parse(readFileSync(join(home, 'drafts', `${link}.json`), 'utf8'));
    expect(linkDraft.evidence_report.commands_run).toEqual(['other']);
    expect(JSON.stringify(linkDraft)).not.toContain(rc.receipt_id);
  });
});
