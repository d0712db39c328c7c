/**
 * The order the pool takes test files in. A few files spend most of their time waiting out a time limit (a lock held
 * for its full 15 s, a server that stops answering); a worker running one holds its place in the pool but leaves the
 * CPU idle. vitest's own order (each project's files, longest or largest first) put four of them side by side, and
 * for 13 s both cores were nearly idle. Here each project's files run longest first, as vitest orders them, except that
 * its waiting files (longest first too) are placed by a simulation of the pool: one starts only while fewer than `cap`
 * waiting files run, so the other workers keep both cores busy, and as early as that allows, so that none is left
 * waiting alone at the end. Each file's duration comes from vitest's record of the last run, else from a list of the
 * long files, else from a guess per project (a clean clone has no record: there vitest's order, by file size, started
 * the two longest files last, and one ran alone for 17 s at the end). Unlike vitest's, this order does not put the
 * files that failed last time first. It changes only the order, never which files run or how.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export interface Estimate {
  /** How long the file is expected to run, in seconds. */
  seconds: number;
  /** True for a file that mostly waits. */
  waits: boolean;
}

/**
 * `groups` (each project's files, in run order) as one list: each group's other files longest first (in their given
 * order where equal), its waiting files placed where a pool of `slots` workers, running the files for their
 * estimated time, has fewer than `cap` waiting files running.
 */
export function spread<T>(groups: T[][], estimate: (f: T) => Estimate, slots: number, cap: number): T[] {
  const order: T[] = [];
  /** The simulated pool: when each running file ends, and whether it waits. */
  const running: { end: number; waits: boolean }[] = [];
  let now = 0;
  for (const group of groups) {
    const waiters = group.filter((f) => estimate(f).waits).sort((a, b) => estimate(b).seconds - estimate(a).seconds);
    const others = group.filter((f) => !estimate(f).waits).sort((a, b) => estimate(b).seconds - estimate(a).seconds);
    while (waiters.length + others.length > 0) {
      if (running.length >= slots) {
        const first = running.reduce((best, r, i) => (r.end < running[best].end ? i : best), 0);
        now = running.splice(first, 1)[0].end;
      }
      const waiting = running.filter((r) => r.waits).length;
      const file = waiters.length > 0 && (waiting < cap || others.length === 0) ? waiters.shift()! : others.shift()!;
      order.push(file);
      running.push({ end: now + estimate(file).seconds, waits: estimate(file).waits });
    }
  }
  return order;
}

/** Consecutive runs of `items` with the same key, in order. */
function runsOf<T>(items: T[], key: (item: T) => string): T[][] {
  const runs: T[][] = [];
  for (const item of items) {
    const last = runs.at(-1);
    if (last !== undefined && key(last[0]) === key(item)) last.push(item);
    else runs.push([item]);
  }
  return runs;
}

export interface SpreadOptions {
  /** Test files (relative to the repository, `test/…`) that mostly wait, with their seconds of waiting. */
  waiting: Readonly<Record<string, number>>;
  /** Test files that run long without waiting, with their seconds. */
  long: Readonly<Record<string, number>>;
  /** Seconds any other file of each project takes when vitest has no record of it. */
  guess: Readonly<Record<string, number>>;
  /** The pool's size. */
  slots: number;
  /** At most this many waiting files at a time. */
  cap: number;
}

/** A sequencer class for vitest's `sequence.sequencer`. */
export function spreadWaits(o: SpreadOptions) {
  return class SpreadWaits extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const root = this.ctx.config.root;
      const estimates = new Map<TestSpecification, Estimate>();
      for (const f of files) {
        const path = relative(root, f.moduleId);
        const recorded = this.ctx.cache.getFileTestResults(`${f.project.name}:${path}`)?.duration;
        const wait = o.waiting[path];
        const seconds =
          recorded !== undefined ? recorded / 1000 : (wait ?? o.long[path] ?? o.guess[f.project.name] ?? 1);
        estimates.set(f, { seconds, waits: wait !== undefined });
      }
      const sorted = await super.sort(files);
      return spread(
        runsOf(sorted, (f) => f.project.name),
        (f) => estimates.get(f)!,
        o.slots,
        o.cap,
      );
    }
  };
}
