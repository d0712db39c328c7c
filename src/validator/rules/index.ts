/**
 * The rules in the normative check order (steps 2–10; step 1 is in validate.ts). Order is
 * the contract: callers and the case file depend on the exact sequence of errors.
 */
import type { Rule } from '../context.js';
import { agentStatus } from './agent-status.js';
import { approvalBlock } from './approval-block.js';
import { completeShape } from './complete-shape.js';
import { consolidationReport } from './consolidation-report.js';
import { evidenceLists } from './evidence-lists.js';
import { failureReport } from './failure-report.js';
import { fieldTypes } from './field-types.js';
import { fileReferences } from './file-references.js';
import { keyVocabulary } from './key-vocabulary.js';
import { receiptRefs, verificationCompanion, verificationResult } from './verification.js';
import { workPhase } from './work-phase.js';

export const RULES: readonly Rule[] = [
  keyVocabulary, // 2
  fieldTypes, // 3
  agentStatus, // 4.1–4.4
  completeShape, // 4.5
  evidenceLists, // 5.1
  verificationCompanion, // 5.2
  verificationResult, // 5.3
  receiptRefs, // 5.4
  approvalBlock, // 6
  consolidationReport, // 7
  failureReport, // 8
  workPhase, // 9
  fileReferences, // 10
];
