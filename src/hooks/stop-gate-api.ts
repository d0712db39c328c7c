/**
 * The stop gate for a host that is not a command hook (the OpenCode plugin): runs `contract gate --json` with the
 * given input in a Node child process and returns its verdict. A child, not an in-process call: the host may be
 * another runtime (OpenCode runs plugins in Bun) where the store's native module does not load; `node` names the
 * Node binary to use.
 */
import type { Harness } from '../harnesses/index.js';

export interface StopGateRequest {
  /** The hook input the gate reads (for OpenCode: hook_event_name "session.idle", session_id, prompt, cwd, stop_hook_active). */
  input: Record<string, unknown>;
  harness: Harness;
  /** More gate flags, e.g. ["--on-missing", "allow"]. */
  args?: string[];
  /** The Node binary (default: this process's). */
  node?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface StopGateResult {
  /** The gate's exit: 0 or 2 with a verdict; 1 (not gated) or 70 without one. */
  exit: number;
  /** The verdict object (decision, reason, systemMessage, …); undefined when the gate could not decide. */
  verdict?: Record<string, unknown>;
  stderr: string;
}

/** bin/run.js of this package (dist/hooks/ is two levels below the package root). */
const binUrl = (): URL => new URL('../../bin/run.js', import.meta.url);

export async function stopGate(req: StopGateRequest): Promise<StopGateResult> {
  // Loaded on call: importing the library stays free of child processes.
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const BIN = fileURLToPath(binUrl());
  return new Promise((resolve) => {
    const child = spawn(
      req.node ?? process.execPath,
      [BIN, 'contract', 'gate', '--harness', req.harness, '--json', ...(req.args ?? [])],
      {
        env: req.env ?? process.env,
        cwd: req.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => resolve({ exit: 1, stderr: `handoff contract gate could not start: ${e.message}` }));
    child.on('close', (code) => {
      let verdict: Record<string, unknown> | undefined;
      try {
        const v = JSON.parse(stdout) as Record<string, unknown>;
        if (v.status === 'ok') verdict = v;
      } catch {
        verdict = undefined;
      }
      resolve({ exit: code ?? 1, verdict, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(req.input));
  });
}
