/**
 * PostgreSQL calls are bounded in time: a server that stops answering after the connection was made (a network
 * that drops traffic after authentication; a server frozen with SIGSTOP) ends a verb with STORE_UNREACHABLE (exit 4,
 * one line), and the strict gate blocks, each within its limit. A COMMIT without an answer is an unknown outcome:
 * dispatch keeps its draft and a later finalize converges. The gate answers within --timeout, also when its main
 * thread waits in a synchronous call (SQLite's busy wait, which the budget bounds). Short limits keep the runs short; the kill timer only catches hangs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO, baseEnv, tempHome } from '../helpers/cli.js';
import { dropDatabase, freshDatabase, freshSchema } from '../helpers/pg.js';
import { pgRow } from '../helpers/pg-cli.js';
import { startPgProxy, type PgProxy } from '../helpers/pg-proxy.js';
import { COMPLETE_PATCH, WS_FLAGS, rawStore } from '../helpers/gate.js';

/** A hang is a failure: the child is killed after this long (a hang guard, not a speed bar). */
const HANG_MS = 60_000;
const FAST = { HANDOFF_STORE_TIMEOUT_MS: '1500' };

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
  /** True when the guard had to kill it: the call never ended by itself. */
  hung: boolean;
}

/** The CLI, asynchronously (the proxy lives in this process), killed only if it hangs. */
function call(home: string, args: string[], env: Record<string, string>, input = ''): Promise<Ended> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(home, env), cwd: home });
    let stdout = '';
    let stderr = '';
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.end(input);
    child.on('close', (code) => {
      clearTimeout(guard);
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      done({ code, stdout, stderr, json, hung });
    });
  });
}

const drafts = (home: string): string[] =>
  existsSync(join(home, 'drafts'))
    ? readdirSync(join(home, 'drafts')).filter((f) => /\.[0-9a-f]{12}\.json$/.test(f))
    : [];

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase();
});
afterAll(async () => {
  await dropDatabase(dbUrl);
});

/** A store on its own schema with one dispatched contract (and its draft in `home`). */
async function storeWithContract(home: string): Promise<{ url: string; id: string }> {
  const url = await freshSchema(dbUrl);
  const r = await call(home, ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'g', '--json'], {
    HANDOFF_STORE_URL: url,
  });
  expect(r.code, r.stderr).toBe(0);
  return { url, id: r.json.contract_id as string };
}

/** Writes the closing fields and closes `id` on the store at `url`: a finalized COMPLETE row; returns finalize's result. */
async function finalizeComplete(home: string, url: string, id: string): Promise<Ended> {
  const env = { HANDOFF_STORE_URL: url };
  const fill = await call(home, ['contract', 'fill', '--draft-id', id, '--json', JSON.stringify(COMPLETE_PATCH)], env);
  expect(fill.code, fill.stderr).toBe(0);
  const set = await call(home, ['contract', 'set', 'agent_status.agent_state', 'COMPLETE', '--draft-id', id], env);
  expect(set.code, set.stderr).toBe(0);
  return call(home, ['contract', 'finalize', '--draft-id', id, '--json'], env);
}

/**
 * The gate on a dispatched, unfinalized contract of a SQLite store whose write lock another connection holds for the
 * whole call: the gate finds the contract (reads are not blocked), and its writes busy-wait on the main thread.
 */
async function gateOnLockedStore(flags: string[], input = ''): Promise<Ended> {
  const home = tempHome();
  const d = await call(home, ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'g', '--json'], {});
  expect(d.code, d.stderr).toBe(0);
  const holder = rawStore(home);
  holder.prepare('BEGIN IMMEDIATE').run();
  try {
    return await call(home, ['contract', 'gate', '--draft-id', d.json.contract_id, ...flags], {}, input);
  } finally {
    holder.prepare('ROLLBACK').run();
    holder.close();
  }
}

/**
 * The tests run side by side: each has its own schema (or server) and its own proxy, and each mostly waits for a
 * time limit to run out, so one after another the file waited over a minute.
 */
describe.concurrent('PostgreSQL time limits', () => {
  describe('a network that drops traffic after authentication', () => {
    let proxy: PgProxy | undefined;
    afterAll(async () => {
      await proxy?.close();
    });

    it('ends the store verbs with STORE_UNREACHABLE (exit 4, one line, no stack); a write changes nothing', async () => {
      const home = tempHome();
      const { url, id } = await storeWithContract(home);
      proxy = await startPgProxy(url, { kind: 'after-auth' });
      const env = { HANDOFF_STORE_URL: proxy.via(url), ...FAST };
      const before = readFileSync(join(home, 'drafts', `${id}.json`), 'utf8');
      for (const args of [
        ['contract', 'list', '--json'],
        ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'g2', '--json'],
        ['contract', 'add', 'evidence_report.commands_run', 'npm test', '--draft-id', id, '--json'],
      ]) {
        const r = await call(home, args, env);
        expect(r.hung, args.join(' ')).toBe(false);
        expect([r.code, r.json?.code], `${args.join(' ')}: ${r.stdout}${r.stderr}`).toEqual([4, 'STORE_UNREACHABLE']);
      }
      const human = await call(home, ['contract', 'list'], env);
      expect(human.code).toBe(4);
      expect(human.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(human.stderr).toMatch(/HANDOFF_STORE_TIMEOUT_MS.*\[STORE_UNREACHABLE\]$/m);
      expect(human.stderr).not.toMatch(/\n\s+at /);
      expect(readFileSync(join(home, 'drafts', `${id}.json`), 'utf8')).toBe(before);
      expect(drafts(home)).toEqual([`${id}.json`]);
      expect(proxy.tripped).toBe(true);
    });

    it('the gate fails open (exit 1); the strict gate blocks with STORE_UNREACHABLE, by the store limit or by its own budget', async () => {
      const home = tempHome();
      const { url, id } = await storeWithContract(home);
      const p = await startPgProxy(url, { kind: 'after-auth' });
      try {
        const via = p.via(url);
        const open = await call(home, ['contract', 'gate', '--draft-id', id], { HANDOFF_STORE_URL: via, ...FAST });
        expect([open.hung, open.code], open.stderr).toEqual([false, 1]);
        expect(open.stderr).toMatch(/did not answer in time.*Stop not gated\./);

        const strict = ['contract', 'gate', '--draft-id', id, '--on-store-error', 'block', '--json'];
        const byStore = await call(home, strict, { HANDOFF_STORE_URL: via, ...FAST });
        expect([byStore.hung, byStore.code], byStore.stderr).toEqual([false, 2]);
        expect(byStore.json).toMatchObject({ decision: 'block', codes: ['STORE_UNREACHABLE'] });

        // The store's own limit (10 s by default) is longer than this budget: the budget ends the call.
        const byBudget = await call(home, [...strict, '--timeout', '3s'], { HANDOFF_STORE_URL: via });
        expect([byBudget.hung, byBudget.code], byBudget.stderr).toEqual([false, 2]);
        expect(byBudget.json).toMatchObject({ decision: 'block', codes: ['STORE_UNREACHABLE'] });
        expect(byBudget.json.errors[0].detail).toMatch(/budget of 3 s/);
      } finally {
        await p.close();
      }
    });
  });

  describe('the gate budget on PostgreSQL', () => {
    it('an overrun after the contract was found blocks with GATE_BUDGET_EXCEEDED, counted, even without --on-store-error block', async () => {
      const home = tempHome();
      const { url, id } = await storeWithContract(home);
      expect((await finalizeComplete(home, url, id)).code).toBe(0);
      // The lookup reads the chain once; the check of the closed row reads it again: the network drops there.
      const p = await startPgProxy(url, { kind: 'at-statement', pattern: /WITH RECURSIVE/, nth: 2 });
      let r: Ended;
      try {
        // The budget counts from the gate's start and must leave room to find the contract first, on a loaded machine
        // too (beside the suite's 128-process runs, 6 s was once spent before the lookup); the store's own limit is
        // longer than the budget, so the overrun is the budget's.
        r = await call(home, ['contract', 'gate', '--draft-id', id, '--json', '--timeout', '20s'], {
          HANDOFF_STORE_URL: p.via(url),
          HANDOFF_STORE_TIMEOUT_MS: '60000',
        });
      } finally {
        await p.close();
      }
      expect(p.tripped).toBe(true);
      expect([r.hung, r.code], r.stderr).toEqual([false, 2]);
      expect(r.json).toMatchObject({ decision: 'block', contract_id: id, codes: ['GATE_BUDGET_EXCEEDED'], attempt: 1 });
      expect(r.stderr).toContain('GATE_BUDGET_EXCEEDED');
    });
  });

  describe('a COMMIT without an answer', () => {
    for (const forward of [true, false]) {
      it(`dispatch keeps its draft and reports the unknown outcome; a later finalize converges (COMMIT ${forward ? 'delivered' : 'lost'})`, async () => {
        const home = tempHome();
        const url = await freshSchema(dbUrl);
        expect((await call(home, ['contract', 'list', '--json'], { HANDOFF_STORE_URL: url })).code).toBe(0);
        const p = await startPgProxy(url, { kind: 'at-commit', forward });
        let r: Ended;
        try {
          // Create the store first (its migrations commit too), then cut at the dispatch's COMMIT.
          const direct = await call(home, ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'first', '--json'], {
            HANDOFF_STORE_URL: url,
          });
          expect(direct.code, direct.stderr).toBe(0);
          r = await call(home, ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'g', '--json'], {
            HANDOFF_STORE_URL: p.via(url),
            ...FAST,
          });
        } finally {
          await p.close(); // a lost COMMIT's transaction ends (rolled back) when its connection does
        }
        expect(p.tripped).toBe(true);
        expect([r.hung, r.code, r.json?.code], r.stdout + r.stderr).toEqual([false, 4, 'STORE_UNREACHABLE']);
        expect(r.json.outcome).toBe('unknown');
        const id = r.json.contract_id as string;
        expect(drafts(home)).toContain(`${id}.json`);

        const fin = await finalizeComplete(home, url, id);
        expect(fin.code, fin.stdout + fin.stderr).toBe(0);
        expect((await pgRow(url, id)).agent_state).toBe('COMPLETE');
      });
    }
  });

  describe('a server frozen with SIGSTOP after the connection was made', () => {
    it('ends a verb with STORE_UNREACHABLE and makes the strict gate block, each within its limit', async () => {
      const { startServer } = (await import(pathToFileURL(join(REPO, 'scripts', 'pg-server.mjs')).href)) as {
        startServer: () => Promise<{ url: (db?: string) => string; dir: string; stop: () => Promise<void> }>;
      };
      const server = await startServer();
      const frozen: number[] = [];
      const freeze = (): void => {
        const postmaster = Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
        const pids = [postmaster];
        for (const entry of readdirSync('/proc')) {
          if (!/^\d+$/.test(entry)) continue;
          try {
            const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
            if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry));
          } catch {
            // gone meanwhile
          }
        }
        for (const pid of pids) process.kill(pid, 'SIGSTOP');
        frozen.push(...pids);
      };
      const thaw = (): void => {
        for (const pid of frozen.splice(0)) {
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            // gone
          }
        }
      };
      const proxies: PgProxy[] = [];
      try {
        const url = server.url('postgres');
        const home = tempHome();
        const d = await call(home, ['contract', 'dispatch', ...WS_FLAGS, '--goal', 'g', '--json'], {
          HANDOFF_STORE_URL: url,
        });
        expect(d.code, d.stderr).toBe(0);

        let p = await startPgProxy(url, { kind: 'pass', onReady: freeze });
        proxies.push(p);
        const verb = await call(home, ['contract', 'list', '--json'], { HANDOFF_STORE_URL: p.via(url), ...FAST });
        expect(p.tripped).toBe(true);
        thaw();
        expect([verb.hung, verb.code, verb.json?.code], verb.stderr).toEqual([false, 4, 'STORE_UNREACHABLE']);

        p = await startPgProxy(url, { kind: 'pass', onReady: freeze });
        proxies.push(p);
        const gate = await call(
          home,
          [
            'contract',
            'gate',
            '--draft-id',
            d.json.contract_id,
            '--on-store-error',
            'block',
            '--json',
            '--timeout',
            '5s',
          ],
          {
            HANDOFF_STORE_URL: p.via(url),
          },
        );
        thaw();
        expect([gate.hung, gate.code], gate.stderr).toEqual([false, 2]);
        expect(gate.json).toMatchObject({ decision: 'block', codes: ['STORE_UNREACHABLE'] });
      } finally {
        thaw();
        for (const p of proxies) await p.close();
        await server.stop();
      }
    });
  });

  describe('the gate budget while the main thread waits in a synchronous call', () => {
    it('the answer is the verdict, its writes abandoned (SQLite: a capture busy-waiting on a locked store, a wait the budget bounds)', async () => {
      // Room to reach the verdict before the budget's cut-off, on a loaded machine too (1.5 s failed under load 8).
      const r = await gateOnLockedStore(['--json', '--timeout', '6s']);
      expect([r.hung, r.code], r.stderr).toEqual([false, 2]);
      expect(r.json).toMatchObject({
        decision: 'block',
        codes: ['ROW_NOT_FINALIZED'],
        writes_abandoned: true,
        captured: false,
      });
    });
  });
});

/** Hook inputs of the JSON-answer harnesses (their recorded shapes), for a gate run with --draft-id. */
const geminiInput = JSON.stringify({
  session_id: 'g-1',
  transcript_path: '/nonexistent/session.json',
  cwd: '/tmp',
  hook_event_name: 'AfterAgent',
  timestamp: '2026-12-03T07:00:00.000Z',
  prompt: 'Work.',
  prompt_response: 'Done.',
  stop_hook_active: false,
});
const copilotInput = JSON.stringify({
  sessionId: 'c-1',
  timestamp: 1764745200000,
  cwd: '/tmp',
  transcriptPath: '/nonexistent/events.jsonl',
  stopReason: 'end_turn',
  stop_hook_active: false,
});
const cursorInput = JSON.stringify({
  conversation_id: 'cv-1',
  generation_id: 'gen-1',
  model: 'claude-4-sonnet',
  hook_event_name: 'stop',
  cursor_version: '1.7.2',
  workspace_roots: ['/tmp/w'],
  user_email: null,
  transcript_path: null,
  status: 'completed',
  loop_count: 0,
});

/**
 * One after another: each counts blocks on its contract and reads the count back, and on a machine busy with the
 * tests above a block of the first call was once missing from the second call's count.
 */
describe("the budget's answers in each harness's form", () => {
  /**
   * Both forms (human, then --json) of one gate call on a fresh finalized contract whose second recursive statement
   * never gets an answer. Undefined when a gate never sent that statement: on a machine too busy to start the gate,
   * find the contract and reach it before the store calls' deadline, the budget cut it off earlier (a different
   * answer, not this test's); the caller then runs it again with a budget that leaves more room.
   */
  async function budgetRun(budget: string): Promise<{ id: string; answers: Ended[] } | undefined> {
    const home = tempHome();
    const { url, id } = await storeWithContract(home);
    expect((await finalizeComplete(home, url, id)).code).toBe(0);
    const answers: Ended[] = [];
    for (const json of [false, true]) {
      const p = await startPgProxy(url, { kind: 'at-statement', pattern: /WITH RECURSIVE/, nth: 2 });
      try {
        const args = ['contract', 'gate', '--draft-id', id, '--timeout', budget, ...(json ? ['--json'] : [])];
        // The store's own time limit beyond the budget: the budget is what ends the wait.
        const env = { HANDOFF_STORE_URL: p.via(url), HANDOFF_STORE_TIMEOUT_MS: '60000' };
        answers.push(await call(home, args, env, geminiInput));
      } finally {
        await p.close();
      }
      if (!p.tripped) {
        console.warn(
          `gate within ${budget} never reached the statement; it answered: ${JSON.stringify(answers.at(-1))}`,
        );
        return undefined;
      }
    }
    return { id, answers };
  }

  it('GATE_BUDGET_EXCEEDED reaches a Gemini input as {"decision":"block"} on exit 0, and --json names the harness and its exit', async () => {
    // 6 s is room enough on an idle machine; 20 s when a flood of processes of another test file starved this one.
    const ran = (await budgetRun('6s')) ?? (await budgetRun('20s'));
    expect(ran, 'the gate never reached its second store statement within its budget').toBeDefined();
    const { id, answers } = ran!;
    const [human, json] = answers;
    expect([human.hung, human.code], human.stderr).toEqual([false, 0]);
    const answer = JSON.parse(human.stdout);
    expect(Object.keys(answer)).toEqual(['decision', 'reason']);
    expect(answer).toMatchObject({
      decision: 'block',
      reason: expect.stringMatching(/^\[CONTRACT REJECTED\] .*GATE_BUDGET_EXCEEDED/),
    });
    expect(human.stderr).toBe('');
    expect([json.hung, json.code], json.stderr).toEqual([false, 0]);
    expect(json.json).toMatchObject({
      harness: 'gemini',
      exit: 0,
      decision: 'block',
      contract_id: id,
      codes: ['GATE_BUDGET_EXCEEDED'],
      attempt: 2,
    });
  });

  it('a budget overrun before the contract was found: Gemini fails open (exit 1, stdout empty); the strict gate blocks Cursor with {"followup_message"}', async () => {
    const home = tempHome();
    const { url, id } = await storeWithContract(home);
    const p = await startPgProxy(url, { kind: 'after-auth' });
    try {
      const via = p.via(url);
      const open = await call(
        home,
        ['contract', 'gate', '--draft-id', id, '--timeout', '3s'],
        { HANDOFF_STORE_URL: via },
        geminiInput,
      );
      expect([open.hung, open.code, open.stdout], open.stderr).toEqual([false, 1, '']);
      expect(open.stderr).toMatch(/budget of 3 s.*Stop not gated\./);

      // The budget counts from the gate's start: its answer takes Cursor's form only once the hook input was read, which
      // took over 6 s with the suite on 4 workers (2 cores); the proxy holds the call for the whole budget anyway.
      const strict = await call(
        home,
        ['contract', 'gate', '--draft-id', id, '--on-store-error', 'block', '--timeout', '12s'],
        { HANDOFF_STORE_URL: via },
        cursorInput,
      );
      expect([strict.hung, strict.code], strict.stderr).toEqual([false, 0]);
      const answer = JSON.parse(strict.stdout);
      expect(Object.keys(answer)).toEqual(['followup_message']);
      expect(answer.followup_message).toMatch(/^\[CONTRACT REJECTED\] .*STORE_UNREACHABLE/);
    } finally {
      await p.close();
    }
  });

  it('the budget\'s answer while the main thread waits on a locked SQLite store is Copilot\'s {"decision":"block"} for a Copilot input', async () => {
    // Reads are not blocked by the held write lock: the contract is found, then its writes wait. Finding it took over
    // 4 s with the suite on 4 workers (2 cores), hence a budget that leaves room for that.
    const r = await gateOnLockedStore(['--timeout', '10s'], copilotInput);
    expect([r.hung, r.code], r.stderr).toEqual([false, 0]);
    const answer = JSON.parse(r.stdout);
    expect(Object.keys(answer)).toEqual(['decision', 'reason']);
    expect(answer.reason).toMatch(/ROW_NOT_FINALIZED[\s\S]*its writes to the store were abandoned/);
  });
});
