/** The `handoffs` row (handoff-row.ts) and its JSON exposure; its statements: queries/handoffs.ts. */
export { exposeHandoff } from './handoff-row.js';
export type { HandoffRow, MirrorOutcome } from './handoff-row.js';
