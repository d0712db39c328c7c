/**
 * The form layer: validateEnvelope. Pure and synchronous; never throws for any JSON value
 * and never mutates its input (rules only read, through own-property accessors).
 */
import { isObject } from '../envelope/vocabulary.js';
import { createContext } from './context.js';
import { details } from './details.js';
import { repairText } from './repair.js';
import { RULES } from './rules/index.js';
import type { ErrorCode, ValidateOptions, ValidationError, ValidationResult, ValidationSource } from './types.js';

/** Reads only the two known options; harnesses pass a case's whole `context` object, other keys are ignored. */
export function readOptions(options: unknown): { consolidation: boolean; source: ValidationSource } {
  if (!isObject(options)) return { consolidation: false, source: 'declaration' };
  return {
    consolidation: Object.hasOwn(options, 'consolidation') && options.consolidation === true,
    source: Object.hasOwn(options, 'source') && options.source === 'row' ? 'row' : 'declaration',
  };
}

export function resultOf(errors: ValidationError[], source: ValidationSource): ValidationResult {
  const codes: ErrorCode[] = [];
  const seen = new Set<ErrorCode>();
  for (const { code } of errors) {
    if (!seen.has(code)) {
      seen.add(code);
      codes.push(code);
    }
  }
  return { ok: errors.length === 0, codes, errors, repair: repairText(source) };
}

export function validateEnvelope(envelope: unknown, options?: ValidateOptions): ValidationResult {
  const { consolidation, source } = readOptions(options);
  const errors: ValidationError[] = [];
  // Step 1: a non-object envelope is the only error; nothing else runs.
  if (!isObject(envelope)) {
    errors.push({
      code: 'MISSING_FIELD',
      path: 'agent_contract_handoff',
      detail: details.notAnObject(envelope, source),
    });
    return resultOf(errors, source);
  }
  const ctx = createContext(envelope, consolidation, source, errors);
  for (const rule of RULES) rule(ctx);
  return resultOf(errors, source);
}
