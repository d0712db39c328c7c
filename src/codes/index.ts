/** The whole code registry, by area. docs/errors.md is rendered from it (src/codes/doc.ts). */
import type { CodeEntry } from './types.js';
import { validatorCodes } from './validator.js';
import { draftCodes } from './drafts.js';
import { storeCodes } from './store.js';
import { evidenceCodes } from './evidence.js';
import { gateCodes } from './gate.js';
import { receiptCodes } from './receipts.js';
import { mcpCodes } from './mcp.js';
import { attestCodes } from './attest.js';

export type { CodeEntry } from './types.js';

export const AREAS: { title: string; codes: CodeEntry[] }[] = [
  { title: 'Validator codes', codes: validatorCodes },
  { title: 'Draft verbs', codes: draftCodes },
  { title: 'Store, finalize, approvals', codes: storeCodes },
  { title: 'Briefs and evidence', codes: evidenceCodes },
  { title: 'Dispatch and stop gate', codes: gateCodes },
  { title: 'Receipts', codes: receiptCodes },
  { title: 'MCP server', codes: mcpCodes },
  { title: 'Keys, signed statements and export', codes: attestCodes },
];

export const ALL_CODES: CodeEntry[] = AREAS.flatMap((a) => a.codes);

