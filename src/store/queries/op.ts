/**
 * A store operation written once for both backends: a generator that yields its statements (`$n` placeholders,
 * `handoff_now()` for the store's clock) and receives each one's rows. SQLite runs it synchronously (runSync, inside
 * one better-sqlite3 call), PostgreSQL asynchronously (runAsync, one round trip per statement); what differs is in the
 * dialect each backend's executor applies (sqlite-dialect.ts, pg-dialect.ts). withOps turns a set of operations into
 * the methods of a store class, so a new store method is its operation here and its line in the interface.
 */

export type Raw = Record<string, unknown>;

export interface Rows<R = Raw> {
  rows: R[];
  /** Rows written (an INSERT, UPDATE or DELETE), or rows returned. */
  rowCount: number;
}

/** What only a backend knows of a statement's text. */
export interface Dialect {
  /** The condition that a column is one of the texts of an array parameter `param` (the value: a string array). */
  inTexts(param: string): string;
  /** `expr` compared and ordered ignoring case (ASCII), as the schema's case-blind uniqueness compares. */
  nocase(expr: string): string;
  /** What locks the rows a SELECT reads until the transaction ends, where writers run side by side; else ''. */
  forUpdate: string;
}

/** A statement's text: fixed, or built once per dialect from a module-level function (so its identity is stable). */
export type Text = string | ((d: Dialect) => string);

export interface Stmt {
  text: Text;
  values: readonly unknown[];
  /**
   * The schema version that created the table the statement reads: on a store read as it is at an older version (a
   * probe), the statement is not run and finds no rows.
   */
  since?: number;
  /** Not a statement: asks whether the store is at `since` or later (schemaAtLeast); answered without a round trip. */
  probe?: true;
}

/** An operation: yields statements, receives their rows, returns its result. */
export type Op<T> = Generator<Stmt, T, Rows>;

/** One statement of an operation: `const { rows } = yield* q(TEXT, [a, b])`; `since`: see Stmt. */
export function* q<R = Raw>(
  text: Text,
  values: readonly unknown[] = [],
  since?: number,
): Generator<Stmt, Rows<R>, Rows> {
  return (yield { text, values, since }) as Rows<R>;
}

/** Whether the store's schema is at `version` or later (a store read as it is may be older than the build). */
export function* schemaAtLeast(version: number): Generator<Stmt, boolean, Rows> {
  return (yield { text: '', values: [], since: version, probe: true }).rowCount === 1;
}

const NO_ROWS: Rows = { rows: [], rowCount: 0 };
const AT_LEAST: Rows = { rows: [], rowCount: 1 };

/** Whether a store at `version` (undefined: the build's) lacks the table `s` reads: then it finds no rows. */
const beforeTable = (s: Stmt, version: number | undefined): boolean =>
  s.since !== undefined && version !== undefined && version < s.since;

/** Runs `op` with a synchronous executor (SQLite) on a store at schema `version`. */
export function runSync<T>(op: Op<T>, exec: (s: Stmt) => Rows, version?: number): T {
  for (let step = op.next(); ;) {
    if (step.done === true) return step.value;
    step = op.next(beforeTable(step.value, version) ? NO_ROWS : step.value.probe ? AT_LEAST : exec(step.value));
  }
}

/** Runs `op` with an asynchronous executor (PostgreSQL) on a store at schema `version`. */
export async function runAsync<T>(op: Op<T>, exec: (s: Stmt) => Promise<Rows>, version?: number): Promise<T> {
  for (let step = op.next(); ;) {
    if (step.done === true) return step.value;
    step = op.next(beforeTable(step.value, version) ? NO_ROWS : step.value.probe ? AT_LEAST : await exec(step.value));
  }
}

/** A set of operations, each a function of the method's arguments. */
export type OpSet = Record<string, (...args: never[]) => Op<unknown>>;

/** The store methods of an OpSet: same arguments, the operation's result as a promise. */
export type Methods<O extends OpSet> = {
  [K in keyof O]: O[K] extends (...args: infer A) => Op<infer T> ? (...args: A) => Promise<T> : never;
};

/** The runners a store class gives its operations: reads, and writes (a transaction handle only). */
export interface OpRunner {
  runRead<T>(op: Op<T>): Promise<T>;
  runWrite<T>(op: Op<T>): Promise<T>;
}

type Ctor<T> = abstract new (...args: any[]) => T;

/**
 * `Base` with one method per operation of `ops`, each running its operation with `Base`'s `runRead` or `runWrite`.
 * The methods are own properties, as arrow-function fields are: a method taken off its store still works.
 */
export function withOps<B extends Ctor<Partial<OpRunner>>, O extends OpSet>(
  Base: B,
  ops: O,
  runner: keyof OpRunner,
): B & Ctor<Methods<O>> {
  abstract class WithOps extends Base {
    // A mixin's constructor must take any[] (TypeScript's rule), and passes it on unchanged.
    constructor(...args: any[]) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
      super(...args);
      const self = this as unknown as Record<string, unknown> & OpRunner;
      for (const [name, make] of Object.entries(ops)) {
        self[name] = (...a: never[]) => self[runner](make(...a));
      }
    }
  }
  return WithOps as unknown as B & Ctor<Methods<O>>;
}
