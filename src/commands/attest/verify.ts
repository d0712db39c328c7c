/** `handoff attest verify`: checks an export offline (signatures, the chain, digests, blobs, the head). */
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { usage } from '../../errors.js';

export default class AttestVerify extends HandoffCommand {
  static override summary = 'Verify an exported chain offline';
  static override args = {
    FILE: Args.string({ required: true, description: 'The JSON Lines file attest export wrote', ignoreStdin: true }),
  };
  static override description =
    "Verifies FILE without the store or the network: every line's signature (with @sigstore/verify, the trust material being the public keys given), every subject digest recomputed from its signed statement, the chain of handoff statements walked from genesis with exactly one successor at each step, and the head statement (the tip, the count of each kind of line, the digest of every line in order), so a dropped, reordered, duplicated, forked or truncated line is caught. --key is repeatable (one key per host that signed); approval lines may also be signed by a key of HANDOFF_APPROVER_KEYS, which, when set, must have signed every approval in force. --blobs DIR also checks each cited evidence blob (a file in DIR named by its sha256, or by its file name). Exit 0: verified. Exit 1: the first problem, its code (ATTEST_FORMAT, ATTEST_SIGNATURE, ATTEST_DIGEST, ATTEST_CHAIN, ATTEST_BLOB_MISSING, APPROVAL_UNSIGNED, APPROVAL_SIGNATURE_INVALID) and its line number.";
  static override flags = {
    key: Flags.string({
      helpValue: 'PUB',
      multiple: true,
      description: 'A public key file (PEM) whose signatures are trusted; repeatable',
    }),
    blobs: Flags.string({ helpValue: 'DIR', description: 'A folder holding the cited evidence blobs' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff attest verify chain.jsonl --key keys/handoff.pub'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext): Promise<CommandResult> {
    const keys = (ctx.flags.key as string[] | undefined) ?? [];
    if (keys.length === 0) throw usage('--key PUB is required (the public key the export was signed with)');
    const blobs = ctx.flags.blobs as string | undefined;
    if (blobs !== undefined && (blobs.trim() === '' || blobs.includes('\0'))) throw usage('--blobs must name a folder');
    const { verifyExport } = await import('../../attest/verify.js');
    const r = verifyExport(ctx.env, ctx.cwd, { file: ctx.args.FILE!, keys, blobs });
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
        tip: r.tip,
        blobs_checked: r.blobsChecked,
      },
      text: `OK: ${r.lines} line(s) verified: ${r.counts.handoff} handoff(s), ${r.counts.receipt} receipt(s), ${r.counts.approval} approval(s); tip ${r.tip}${blobs === undefined ? '' : `; ${r.blobsChecked} blob(s) checked`}.`,
    };
  }
}
