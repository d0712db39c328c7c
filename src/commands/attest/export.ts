/** `handoff attest export`: a handoff chain as JSON Lines of signed Sigstore bundles (docs/attest.md). */
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { usage } from '../../errors.js';
import { checkDraftId } from '../../ids.js';

export default class AttestExport extends HandoffCommand {
  static override summary = 'Export a chain as signed in-toto statements';
  static override description =
    "Writes FILE as JSON Lines, one Sigstore bundle (v0.3, DSSE, application/vnd.in-toto+json) per line, each an in-toto Statement v1: every finalized handoff of the chain, root first, each linked to the previous one inside its signed payload; every receipt of the chain's contracts (the test-result predicate); every approval the chain cites; and last a head statement (the tip's digest, the count of each kind of line and every line's digest in order). --chain ID exports the whole chain ID belongs to; --contract-id ID the chain up to ID. Statements signed when they were written are exported as stored; the others are signed now with HANDOFF_SIGNING_KEY, and the line says so outside the signed payload. Without a key: KEY_REQUIRED. Check a file with handoff attest verify. --format a2a writes the chain as A2A v1 Tasks instead, one JSON object a line (each turn a Task, its envelope, receipts, evidence and approval as artifacts, its handoff statement's payload digest in metadata); it reads no key and signs nothing.";
  static override oneOf = [['contract-id', 'chain']];
  static override flags = {
    'contract-id': Flags.string({ helpValue: 'ID', description: 'Export the chain from its root up to this contract' }),
    chain: Flags.string({
      exclusive: ['contract-id'],
      helpValue: 'ID',
      description: 'Export the whole chain this contract belongs to',
    }),
    out: Flags.string({ helpValue: 'FILE', description: 'The JSON Lines file to write (replaced atomically)' }),
    format: Flags.option({ options: ['sigstore', 'a2a'] as const, default: 'sigstore' as const })({
      description: 'sigstore: signed in-toto bundles; a2a: A2A v1 Tasks (unsigned)',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff attest export --chain a0123456789abcdef.0123456789ab --out chain.jsonl',
    'handoff attest export --format a2a --chain a0123456789abcdef.0123456789ab --out tasks.jsonl',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const cid = ctx.flags['contract-id'] as string | undefined;
    const chain = ctx.flags.chain as string | undefined;
    if ((cid === undefined) === (chain === undefined)) throw usage('pass exactly one of --contract-id and --chain');
    const id = (cid ?? chain)!;
    checkDraftId(id, cid !== undefined ? '--contract-id' : '--chain');
    const out = ctx.flags.out as string | undefined;
    if (out === undefined || out.trim() === '' || out.includes('\0')) throw usage('--out FILE is required');
    if (ctx.flags.format === 'a2a') {
      const { exportA2a } = await import('../../attest/a2a.js');
      const r = await exportA2a(ctx.env, ctx.cwd, { id, whole: chain !== undefined, out });
      return {
        json: {
          status: 'ok',
          format: 'a2a',
          out: r.out,
          tasks: r.tasks,
          context_id: r.contextId,
          tip: r.tip,
          states: r.states,
        },
        text: `OK: wrote ${r.tasks} A2A task(s) to ${r.out} (context ${r.contextId}, tip ${r.tip}).`,
      };
    }
    const { exportChain } = await import('../../attest/export.js');
    const r = await exportChain(ctx.env, ctx.cwd, { id, whole: chain !== undefined, out });
    return {
      json: {
        status: 'ok',
        out: r.out,
        lines: r.lines,
        counts: r.counts,
        signed_now: r.signedNow,
        tip: r.tip,
        key_id: r.keyId,
      },
      text: `OK: wrote ${r.lines} line(s) to ${r.out}: ${r.counts.handoff} handoff(s), ${r.counts.receipt} receipt(s), ${r.counts.approval} approval(s), 1 head; ${r.signedNow} signed now (key ${r.keyId}).`,
    };
  }
}
