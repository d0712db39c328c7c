// The handoff stop gate for OpenCode, written by `handoff hooks install --harness opencode`
// (`handoff hooks uninstall --harness opencode` removes it). OpenCode has no command hook: this plugin listens for
// the session.idle event and, when the gate blocks, sends its reason back into the session as the next prompt.
// It runs the same gate and breaker as every other harness: in a project's plugin through `handoff` on the PATH
// (HANDOFF.command), in a user's through the handoff library API by absolute path (HANDOFF.node, HANDOFF.library).
// `opencode run` is not gated: it fires session.idle but exits before a follow-up prompt could go out, so under it
// (the command is process.argv[2] in OpenCode's process) the plugin claims nothing and counts nothing.
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const HANDOFF = { node: 'node', library: 'handoff/dist/index.js' };

const expand = (p) => p.replace(/^\$HOME(?=\/|$)/, homedir());

/** The text of the session's first user message (where a dispatched contract block sits). */
async function firstPrompt(client, id) {
  try {
    const res = await client.session.messages({ path: { id } });
    const messages = Array.isArray(res?.data) ? res.data : [];
    const first = messages.find((m) => m?.info?.role === 'user');
    return (first?.parts ?? [])
      .filter((p) => p?.type === 'text')
      .map((p) => p.text)
      .join('');
  } catch {
    return undefined;
  }
}

/** `handoff contract gate --json` through the PATH: its exit and verdict, as the library's stopGate gives them. */
function gateOnPath(input, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(HANDOFF.command, ['contract', 'gate', '--harness', 'opencode', '--json', ...args], {
      cwd,
      env: process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.resume();
    child.on('error', () => resolve({ exit: 1 }));
    child.on('close', (code) => {
      let verdict;
      try {
        const v = JSON.parse(stdout);
        if (v?.status === 'ok') verdict = v;
      } catch {
        verdict = undefined;
      }
      resolve({ exit: code ?? 1, verdict });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
  });
}

export const HandoffGate = async ({ client, directory }) => {
  const library = HANDOFF.command === undefined ? await import(pathToFileURL(expand(HANDOFF.library)).href) : undefined;
  // Sessions this plugin sent back to work: their next idle continues the same turn (the breaker counts it).
  const continuing = new Set();
  return {
    event: async ({ event }) => {
      if (event?.type !== 'session.idle' || process.argv[2] === 'run') return;
      const id = event.properties?.sessionID;
      if (typeof id !== 'string') return;
      const active = continuing.delete(id);
      const input = {
        hook_event_name: 'session.idle',
        session_id: id,
        prompt: await firstPrompt(client, id),
        cwd: directory,
        stop_hook_active: active,
      };
      const args = ['--on-missing', 'allow'];
      const result =
        library === undefined
          ? await gateOnPath(input, args, directory)
          : await library.stopGate({ harness: 'opencode', input, args, node: expand(HANDOFF.node), cwd: directory });
      const verdict = result.verdict;
      if (verdict?.decision === 'block' && verdict.tripped !== true && typeof verdict.reason === 'string') {
        continuing.add(id);
        await client.session.prompt({ path: { id }, body: { parts: [{ type: 'text', text: verdict.reason }] } });
      }
    },
  };
};
