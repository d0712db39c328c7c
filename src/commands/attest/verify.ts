/** `handoff attest verify`: checks an export offline (signatures, the chain, digests, blobs, the head). */
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { usage } from '../../errors.js';
import { checkDraftId } from '../../ids.js';

export default class AttestVerify extends HandoffCommand {
  static override summary = 'Verify an exported chain offline';
  static override args = {
    FILE: Args.string({ required: true, description: 'The JSON Lines file attest export wrote', ignoreStdin: true }),
  };
  static override description =
    "Verifies FILE without the store or the network: every line's signature (with @sigstore/verify, the trust material being the public keys given), every subject digest recomputed from its signed statement, the chain of handoff statements walked from genesis with exactly one successor at each step, and the head statement (the tip, the count of each kind of line, the digest of every line in order), so a dropped, reordered, duplicated, forked or truncated line is caught. The head also states how each line was signed (at write, or by the export); that is the only label reported, and a handoffSigned mark beside a bundle that differs from it is rejected. --chain ID refuses a file of another chain (ID is the chain's root or a contract whose handoff the file holds) and --tip DIGEST a file whose tip is another. --key is repeatable (one key per host that signed); approval lines may also be signed by a key of HANDOFF_APPROVER_KEYS, which, when set, must have signed every approval in force. --blobs DIR also checks each cited evidence blob (a file in DIR named by its sha256, or by its file name). Exit 0: verified. Exit 1: the first problem, its code (ATTEST_FORMAT, ATTEST_SIGNATURE, ATTEST_DIGEST, ATTEST_CHAIN, ATTEST_BLOB_MISSING, APPROVAL_UNSIGNED, APPROVAL_SIGNATURE_INVALID) and its line number.";
  static override flags = {
    key: Flags.string({
      helpValue: 'PUB',
      multiple: true,
      description: 'A public key file (PEM) whose signatures are trusted; repeatable',
    }),
    blobs: Flags.string({ helpValue: 'DIR', description: 'A folder holding the cited evidence blobs' }),
    chain: Flags.string({
      helpValue: 'ID',
      description: 'Refuse a file of another chain than the one this contract belongs to (ATTEST_CHAIN)',
    }),
    tip: Flags.string({
      helpValue: 'DIGEST',
      description: 'Refuse a file whose verified tip is not this payload digest (ATTEST_CHAIN)',
    }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = [
    'handoff attest verify chain.jsonl --key keys/handoff.pub',
    'handoff attest verify chain.jsonl --key keys/handoff.pub --chain a0123456789abcdef.0123456789ab',
  ];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const keys = (ctx.flags.key as string[] | undefined) ?? [];
    if (keys.length === 0) throw usage('--key PUB is required (the public key the export was signed with)');
    const blobs = ctx.flags.blobs as string | undefined;
    if (blobs !== undefined && (blobs.trim() === '' || blobs.includes('\0'))) throw usage('--blobs must name a folder');
    const chain = checkDraftId(ctx.flags.chain as string | undefined, '--chain');
    const tip = ctx.flags.tip as string | undefined;
    if (tip !== undefined && tip !== 'genesis' && !/^[0-9a-f]{64}$/.test(tip))
      throw usage(`--tip ${JSON.stringify(tip)} must be a payload digest (64 lowercase hex digits) or genesis`);
    const { verifyExport } = await import('../../attest/verify.js');
    const r = verifyExport(ctx.env, ctx.cwd, { file: ctx.args.FILE!, keys, blobs, chain, tip });
    if (!r.ok) {
      return {
        exit: 1,
        json: { status: 'rejected', code: r.code, line: r.line, error: r.message },
        errText: `Rejected: ${r.code} at line ${r.line}: ${r.message}`,
      };
    }
    return {
      json: {
        status: 'ok',
        verified: true,
        lines: r.lines,
        counts: r.counts,
        chain: r.chain,
        tip: r.tip,
        statements: r.statements,
        blobs_checked: r.blobsChecked,
      },
      text: `OK: chain ${r.chain}, tip ${r.tip}: ${r.lines} line(s) verified: ${signedText(r.statements)}${blobs === undefined ? '' : `; ${r.blobsChecked} blob(s) checked`}.`,
    };
  }
}

/** How each kind of statement was signed, as the verified head states it: "3 handoff(s) (2 at write, 1 at export), …". */
function signedText(statements: readonly { kind: string; signed: string }[]): string {
  const parts: string[] = [];
  for (const kind of ['handoff', 'receipt', 'approval'] as const) {
    const of = statements.filter((s) => s.kind === kind);
    const atWrite = of.filter((s) => s.signed === 'at-write').length;
    const how = of.length === 0 ? '' : ` (${atWrite} signed at write, ${of.length - atWrite} at export)`;
    parts.push(`${of.length} ${kind}(s)${how}`);
  }
  return `${parts.join(', ')}, the head signed at export, as the signed head states`;
}
