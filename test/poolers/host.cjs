// One "host" of the pooler suite: a process that runs handoff verbs one after another through the shipped bundle's
// `execute(argv, io)` (as the MCP server does), each verb opening and closing its own store connection, so eight
// of them are eight clients of the pooler without paying a process start per verb. Reads its plan from stdin:
// { "env": {...}, "cwd": "...", "cycles": [[argv, ...], ...] }; in an argv, "$ID" is the contract id of the cycle's
// first call; a cycle ends at its first failure. Prints one JSON line: per call, its verb, exit, error code and
// milliseconds.
'use strict';
const { loadBundle, BUNDLE } = require('../../bin/run.js');

const { exports: bundle } = loadBundle(true, BUNDLE);

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const plan = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const calls = [];
  const started = Date.now();
  for (const cycle of plan.cycles) {
    let id;
    for (const argv of cycle) {
      const args = argv.map((a) => (a === '$ID' ? id : a));
      const t0 = Date.now();
      const r = await bundle.execute(args, {
        env: plan.env,
        cwd: plan.cwd,
        stdin: '',
        script: require.resolve('../../bin/run.js'),
      });
      let json;
      try {
        json = JSON.parse(r.stdout.trim().split('\n').pop() || 'null');
      } catch {
        json = undefined;
      }
      if (id === undefined) id = json?.contract_id ?? json?.draft_id;
      calls.push({
        verb: args.slice(0, 2).join(' '),
        exit: r.exit,
        code: json?.code ?? /\b(STORE_[A-Z_]+)\b/.exec(r.stderr)?.[1],
        id,
        ms: Date.now() - t0,
        err: r.exit === 0 ? undefined : (r.stdout + r.stderr).slice(0, 400),
      });
      if (r.exit !== 0) break; // the rest of a failed cycle would only report that failure again
    }
  }
  process.stdout.write(`${JSON.stringify({ ms: Date.now() - started, calls })}\n`);
}

main().catch((e) => {
  process.stderr.write(`host failed: ${e && e.stack ? e.stack : String(e)}\n`);
  process.exit(70);
});
