/**
 * A contract's claim token goes only to whoever dispatched or initialized it: no list, view, chain, export or MCP
 * result shows the token or the sha256 the store keeps, for a dispatched contract and an init one alike.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, tempHome, type RunResult } from '../helpers/cli.js';
import { COMPLETE_PATCH, finalizeAs, row } from '../helpers/gate.js';
import { connect, textOf, type McpSession } from '../helpers/mcp.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe('claim tokens stay out of every read', () => {
  it('no list, view, chain, export or MCP result shows a token or its hash', async () => {
    const home = tempHome();
    const keys = run(home, ['key', 'generate', '--type', 'ed25519', '--out', join(home, 'keys'), '--json']);
    expect(keys.code, keys.stderr).toBe(0);
    const env = { HANDOFF_WORKSPACE: 'ws', HANDOFF_SIGNING_KEY: keys.json.private_key as string };
    const ok = (args: string[]): RunResult => {
      const r = run(home, args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      return r;
    };
    const dispatched = ok(['contract', 'dispatch', '--goal', 'g', '--json']).json;
    const init = ok(['contract', 'init', '--json']).json;
    const open = ok(['contract', 'init', '--json']).json; // a draft only, never finalized
    finalizeAs(home, dispatched.contract_id, 'COMPLETE', COMPLETE_PATCH);
    finalizeAs(home, init.draft_id, 'COMPLETE', COMPLETE_PATCH);
    const secrets = [dispatched.claim_token, init.claim_token, open.claim_token] as string[];
    const hashes = secrets.map(sha256);
    // The store does hold the two rows' hashes: the searches below look for something that exists.
    expect(row(home, dispatched.contract_id).claim_token_sha256).toBe(hashes[0]);
    expect(row(home, init.draft_id).claim_token_sha256).toBe(hashes[1]);

    const outputs: [string, string][] = [];
    const cli = (args: string[]) => {
      const r = ok(args);
      outputs.push([args.join(' '), r.stdout + r.stderr]);
    };
    for (const mode of [[], ['--json']]) {
      cli(['contract', 'list', '--all', ...mode]);
      for (const id of [dispatched.contract_id, init.draft_id, open.draft_id] as string[])
        cli(['contract', 'view', '--draft-id', id, ...mode]);
      for (const id of [dispatched.contract_id, init.draft_id] as string[]) {
        cli(['contract', 'chain', '--draft-id', id, ...mode]);
        cli(['contract', 'chain', '--draft-id', id, '--diff', ...mode]);
      }
    }
    for (const id of [dispatched.contract_id, init.draft_id] as string[]) {
      for (const format of [[], ['--format', 'a2a']]) {
        const out = join(home, `export-${id}-${format.length}.jsonl`);
        cli(['attest', 'export', '--chain', id, '--out', out, ...format, '--json']);
        outputs.push([`export ${id} ${format.join(' ')}`, readFileSync(out, 'utf8')]);
      }
    }

    session = await connect(home, [], env);
    const tool = async (name: string, args: Record<string, unknown>) => {
      const r = await session!.call(name, args);
      expect(r.isError, `${name}: ${textOf(r)}`).toBe(false);
      outputs.push([`mcp ${name} ${JSON.stringify(args)}`, textOf(r) + JSON.stringify(r.structuredContent)]);
    };
    await tool('contract_list', {});
    for (const id of [dispatched.contract_id, init.draft_id] as string[]) {
      await tool('contract_list', { contract_id: id });
      await tool('contract_chain', { contract_id: id });
      await tool('contract_chain', { contract_id: id, diff: true });
    }
    for (const id of [dispatched.contract_id, init.draft_id, open.draft_id] as string[])
      await tool('contract_view', { draft_id: id });
    // contract_init over MCP makes a draft with a token (its sidecar holds the hash) but shows the caller neither.
    await tool('contract_init', {});
    const viaMcp = outputs.at(-1)![1];
    expect(viaMcp).toMatch(/OK: draft \S+ created/);

    expect(outputs.length).toBeGreaterThan(30);
    for (const [what, text] of outputs) {
      expect(text.length, what).toBeGreaterThan(0);
      for (const s of [...secrets, ...hashes]) expect(text, what).not.toContain(s);
      expect(text, what).not.toContain('claim_token');
    }
  });
});
