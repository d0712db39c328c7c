/**
 * PostgreSQL's dialect of the shared statements (src/store/queries/): the texts run as written (`$n`, and
 * `handoff_now()`, the schema's function: the transaction's start on the server's clock); an array parameter is
 * bound as a text array.
 */
import type { Run } from './pg-driver.js';
import { runAsync, type Dialect, type Op, type Text } from './queries/op.js';

const dialect: Dialect = {
  inTexts: (param) => `= ANY(${param}::text[])`,
  nocase: (expr) => `handoff_nocase(${expr})`,
  forUpdate: ' FOR UPDATE',
};

const built = new WeakMap<(d: Dialect) => string, string>();

function pgText(text: Text): string {
  if (typeof text === 'string') return text;
  let out = built.get(text);
  if (out === undefined) built.set(text, (out = text(dialect)));
  return out;
}

/** Runs a shared operation through `run`, one statement after the other, on a store at schema `version`. */
export const onPg = <T>(run: Run, op: Op<T>, version?: number): Promise<T> =>
  runAsync(op, (s) => run(pgText(s.text), s.values), version);
