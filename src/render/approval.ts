/**
 * Human and JSON output of one approval (`approval show`, `approval decide`). Content is shown escaped (see
 * src/approvals/display.ts); `show` prints all of it, `decide` its first lines. The fill input is offered while it
 * can still be cited: pending (the requesting turn) and approved (the executing turn).
 */
import {
  contentBlock,
  escapeForTerminal,
  exceedsCut,
  fillHereDoc,
  fillInput,
  fillStdinCommand,
} from '../approvals/display.js';
import type { ApprovalRow } from '../store/approvals.js';
import { escapeCell } from './table.js';

/** A one-line field: control characters escaped by the table's rule, format characters (bidi) as <U+XXXX>. */
const shown = (v: string | number | null): string => (v === null ? '-' : escapeForTerminal(escapeCell(String(v))).text);
const addressingOf = (row: ApprovalRow) => ({ draftId: row.contract_id, agentId: row.agent_id });

/** The fill input and its command, for a pending or approved approval; null otherwise. */
export function fillFields(row: ApprovalRow): { fill_command: string | null; fill_input: string | null } {
  if (row.status !== 'pending' && row.status !== 'approved') return { fill_command: null, fill_input: null };
  return { fill_command: fillStdinCommand(addressingOf(row)), fill_input: fillInput(row.id, row.exact_content) };
}

function decisionLine(row: ApprovalRow): string {
  if (row.decided_at === null) return 'decided: not yet (pending)';
  const decision = row.status === 'used' ? 'approved' : row.status;
  const note = row.decision_note === null ? '' : `; note: ${shown(row.decision_note)}`;
  return `decided: ${decision} by ${shown(row.decided_by)} at ${row.decided_at}${note}`;
}

function fillSection(row: ApprovalRow, cut: boolean): string[] {
  if (row.status !== 'pending' && row.status !== 'approved') return [];
  const who =
    row.status === 'pending'
      ? 'The requesting turn writes the content and the id with this input, then closes APPROVAL_REQUEST:'
      : 'The executing turn writes the approved content and the id with this input, then does the work and finalizes (finalize marks the approval used):';
  if (cut && exceedsCut(row.exact_content)) {
    return [
      '',
      `${who} \`handoff approval show ${row.id}\` prints it (--json: fill_input for \`${fillStdinCommand(addressingOf(row))}\`).`,
    ];
  }
  return ['', who, fillHereDoc(row.id, row.exact_content, addressingOf(row))];
}

/** `approval show`: every field, the whole content, and the fill input while it can be cited. */
export function approvalShowText(row: ApprovalRow): string {
  const lines = [
    `approval ${row.id}: ${row.status}`,
    `fingerprint: ${row.fingerprint}`,
    `workspace: ${shown(row.workspace)}`,
    `requested by: contract ${shown(row.contract_id)}, agent ${shown(row.agent_id)}, at ${row.created_at}`,
    decisionLine(row),
  ];
  if (row.status === 'used') lines.push(`used: by handoff ${shown(row.used_by_handoff_id)} at ${shown(row.used_at)}`);
  // A use by the pre-tool gate names the tool call it let run (the harness's id, escaped like every field).
  if (row.status === 'used' && typeof row.used_by_tool_use_id === 'string')
    lines.push(`used by tool call: ${shown(row.used_by_tool_use_id)}`);
  lines.push(
    `content (${Buffer.byteLength(row.exact_content, 'utf8')} bytes):`,
    contentBlock(row.id, row.exact_content, { cut: false }),
  );
  return [...lines, ...fillSection(row, false)].join('\n');
}

/** `approval decide`: the outcome, then what was decided: the fingerprint and the first lines of the content. */
export function approvalDecideText(row: ApprovalRow, previous: string, changed: boolean): string {
  const head = changed
    ? `OK: approval ${row.id} ${row.status} (was ${previous}).`
    : `OK: approval ${row.id} is already ${row.status}; no change.`;
  const lines = [
    head,
    `fingerprint: ${row.fingerprint}`,
    'content:',
    contentBlock(row.id, row.exact_content, { cut: true }),
  ];
  return [...lines, ...(row.status === 'approved' ? fillSection(row, true) : [])].join('\n');
}
