/** `handoff approval decide` (store-and-finalize.md §11.1, §11.2): one transition, decided inside the write. */
import { defineCommand } from '../../cli/command.js';
import { nonBlank } from '../../cli/list-flags.js';
import { jsonQuote, usage } from '../../errors.js';
import { storeExists } from '../../paths.js';

const USAGE = 'handoff approval decide APPROVAL_ID --decision approved|rejected|revoked|expired [--by NAME] [--note TEXT] [--json]';
const DECISIONS = ['approved', 'rejected', 'revoked', 'expired'] as const;
const APPROVAL_ID_RE = /^P-[0-9a-f]{32}$/;

export default defineCommand({
  id: 'approval decide',
  summary: 'Decide a pending approval',
  usage: USAGE,
  args: [{ name: 'APPROVAL_ID', required: true, description: 'The approval id (P- and 32 hex)' }],
  flags: {
    decision: { type: 'string', valueName: 'DECISION', description: 'approved, rejected, revoked or expired' },
    by: { type: 'string', valueName: 'NAME', description: 'Who decided' },
    note: { type: 'string', valueName: 'TEXT', description: 'A note stored with the decision' },
    json: { type: 'boolean', description: 'Print one JSON object' },
  },
  async run(ctx) {
    const id = ctx.args.APPROVAL_ID!;
    if (!APPROVAL_ID_RE.test(id)) throw usage(`APPROVAL_ID ${jsonQuote(id)} is not an approval id (pattern ^P-[0-9a-f]{32}$)`);
    const decision = ctx.flags.decision as string | undefined;
    if (decision === undefined) throw usage(`--decision is required`);
    if (!(DECISIONS as readonly string[]).includes(decision)) {
      throw usage(`--decision ${jsonQuote(decision)} must be one of ${DECISIONS.join(', ')}`);
    }
    const by = nonBlank(ctx.flags.by as string | undefined, '--by') ?? null;
    const note = nonBlank(ctx.flags.note as string | undefined, '--note') ?? null;

    const { approvalNotFound, decideApproval } = await import('../../store/approvals.js');
    if (!storeExists(ctx.env, ctx.cwd)) throw approvalNotFound(id);
    const { openWriter, closeDb } = await import('../../store/db.js');
    const db = openWriter(ctx.env, ctx.cwd, { create: false });
    if (db === null) throw approvalNotFound(id);
    let result;
    try {
      result = decideApproval(db, id, decision as (typeof DECISIONS)[number], by, note);
    } finally {
      closeDb(db);
    }
    const { row, previous, changed } = result;
    return {
      json: { status: 'ok', approval_id: id, approval_status: row.status, previous_status: previous, changed },
      text: changed ? `OK: approval ${id} ${row.status} (was ${previous}).` : `OK: approval ${id} is already ${row.status}; no change.`,
    };
  },
});
