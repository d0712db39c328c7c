/** The whole code registry, by area. docs/errors.md is rendered from it (src/codes/doc.ts). */
import type { ExitCode } from '../errors.js';
import type { CodeEntry } from './types.js';
import { validatorCodes } from './validator.js';
import { draftCodes } from './drafts.js';
import { storeCodes } from './store.js';
import { evidenceCodes } from './evidence.js';
import { gateCodes } from './gate.js';
import { receiptCodes } from './receipts.js';
import { mcpCodes } from './mcp.js';
import { attestCodes } from './attest.js';
import { uiCodes } from './ui.js';
import { testChangeCodes } from './tests.js';

export type { CodeEntry } from './types.js';

export const AREAS: readonly { title: string; codes: readonly CodeEntry[] }[] = [
  { title: 'Validator codes', codes: validatorCodes },
  { title: 'Draft verbs', codes: draftCodes },
  { title: 'Store, finalize, approvals', codes: storeCodes },
  { title: 'Briefs and evidence', codes: evidenceCodes },
  { title: 'Dispatch and stop gate', codes: gateCodes },
  { title: 'Receipts', codes: receiptCodes },
  { title: 'MCP server', codes: mcpCodes },
  { title: 'Keys, signed statements and export', codes: attestCodes },
  { title: 'Local page', codes: uiCodes },
  { title: 'Test changes', codes: testChangeCodes },
];

/** Every registered code: a literal union, so an unknown code at a throw site is a compile error. */
export type Code = (
  | typeof validatorCodes
  | typeof draftCodes
  | typeof storeCodes
  | typeof evidenceCodes
  | typeof gateCodes
  | typeof receiptCodes
  | typeof mcpCodes
  | typeof attestCodes
  | typeof uiCodes
  | typeof testChangeCodes
)[number]['code'];

export const ALL_CODES: readonly CodeEntry[] = AREAS.flatMap((a) => a.codes);

let exits: Map<string, ExitCode> | undefined;

/** A code's default exit from the registry (undefined for a code that is not registered). */
export function defaultExit(code: string): ExitCode | undefined {
  exits ??= new Map(ALL_CODES.map((c) => [c.code, c.exit]));
  return exits.get(code);
}
