/** `handoff approval wait`: waits for a decision on one approval (exit 0 approved, 1 rejected, 124 timeout). */
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { generatedUsage } from '../../cli/usage.js';
import { HandoffCommand } from '../../cli/base-command.js';
import type { CommandContext, CommandResult } from '../../cli/command.js';
import { jsonQuote, usage } from '../../errors.js';

const APPROVAL_ID_RE = /^P-[0-9a-f]{32}$/;
/** The exit of a wait that ran out of time (as timeout(1)). */
const TIMED_OUT = 124;
const MAX_WAIT_MS = 24 * 60 * 60 * 1000;

/** `--timeout`: a whole number with its unit (ms, s, m, h), from 1 ms to 24 h. */
export function parseWaitTimeout(raw: string): number {
  const m = /^([0-9]{1,9})(ms|s|m|h)$/.exec(raw);
  const ms = m === null ? NaN : Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms'];
  if (!(ms >= 1 && ms <= MAX_WAIT_MS))
    throw usage(`--timeout ${jsonQuote(raw)} must be a duration with its unit (500ms, 30s, 10m, 1h), at most 24h`);
  return ms;
}

export default class ApprovalWait extends HandoffCommand {
  static override summary = 'Wait for the decision on an approval';
  static override args = {
    APPROVAL_ID: Args.string({ required: true, description: 'The approval id (P- and 32 hex)', ignoreStdin: true }),
  };
  static override description =
    'Polls the approval (with backoff, from 200 ms to 5 s between reads) until it is decided or the time runs out. Exit 0: approved (the approved call may now run once); 1: rejected, revoked, expired or already used; 124: still pending when --timeout ran out. Reads only.';
  static override flags = {
    timeout: Flags.string({ helpValue: 'DURATION', description: 'How long to wait (default 10m; ms, s, m or h)' }),
    json: Flags.boolean({ description: 'Print one JSON object' }),
  };
  static override examples = ['handoff approval wait P-0123456789abcdef0123456789abcdef --timeout 10m'];
  static override usage = generatedUsage(this);

  protected async perform(ctx: CommandContext<{ timeout?: string; json?: boolean }>): Promise<CommandResult> {
    const id = ctx.args.APPROVAL_ID!;
    if (!APPROVAL_ID_RE.test(id))
      throw usage(`APPROVAL_ID ${jsonQuote(id)} is not an approval id (pattern ^P-[0-9a-f]{32}$)`);
    const budget = parseWaitTimeout(ctx.flags.timeout ?? '10m');
    const { showApproval } = await import('../../approvals/decide.js');
    const deadline = Date.now() + budget;
    let delay = 200;
    for (;;) {
      const row = await showApproval(ctx.env, ctx.cwd, id);
      if (row.status !== 'pending') {
        const ok = row.status === 'approved';
        const text = ok
          ? `approval ${id} is approved: make exactly the approved call again (it runs once)`
          : `approval ${id} is ${row.status}${row.decision_note === null ? '' : `: ${row.decision_note}`}`;
        return {
          exit: ok ? 0 : 1,
          text,
          json: { status: ok ? 'ok' : 'rejected', approval_id: id, approval_status: row.status },
        };
      }
      const left = deadline - Date.now();
      if (left <= 0)
        return {
          exit: TIMED_OUT,
          text: `approval ${id} is still pending after ${ctx.flags.timeout ?? '10m'}`,
          json: { status: 'timeout', approval_id: id, approval_status: 'pending' },
        };
      await new Promise((r) => setTimeout(r, Math.min(delay, left)));
      delay = Math.min(delay * 2, 5000);
    }
  }
}
