/**
 * One verdict, each harness's answer: the form in which that harness continues its turn on a block, and what it
 * accepts on an allow (its adapter says which). A stop the gate cannot judge is exit 1 everywhere (the base command
 * prints that one line; stdout stays empty).
 */
import type { HookAnswer } from '../harnesses/adapter.js';
import { adapterOf } from '../harnesses/index.js';
import type { Harness } from './hook-input.js';
import type { GateRun } from './service.js';

export function answerFor(harness: Harness, run: GateRun): HookAnswer {
  return adapterOf(harness).answer(run.exit === 2, run.reason, run.systemMessage);
}
