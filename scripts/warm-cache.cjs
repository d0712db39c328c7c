// Writes the V8 code cache of the CLI bundle (run by scripts/build.mjs): one process loads the bundle without a
// cache, runs the hot verbs (init, set, add, fill, view, validate) on a throw-away data root, then saves the code V8
// compiled meanwhile. Only the hot path: every function in the cache is deserialized by every call, used or not.
'use strict';
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { loadBundle, writeCache } = require('../bin/run.js');

async function main() {
  const home = mkdtempSync(join(tmpdir(), 'handoff-warm-'));
  process.env.HANDOFF_HOME = home;
  process.env.HANDOFF_WORKSPACE = 'warm';
  process.env.NO_COLOR = '1';
  try {
    const { script, exports: cli } = loadBundle(false);
    const file = join(home, 'envelope.json');
    await cli.main(['contract', 'init', '--json', '--draft-id', 'a0123456789abcdef.0123456789ab']);
    const d = ['--draft-id', 'a0123456789abcdef.0123456789ab'];
    await cli.main(['contract', 'set', 'work_phase', 'executing', ...d]);
    await cli.main(['contract', 'set', 'agent_status.agent_state', 'COMPLET', ...d]);
    await cli.main(['contract', 'add', 'evidence_report.files_checked', 'a.ts', ...d]);
    await cli.main(['contract', 'fill', '--json', '{"report_prose":"warm"}', ...d]);
    await cli.main(['contract', 'view', ...d]);
    await cli.main(['contract', 'view', '--json', ...d]);
    await cli.main(['contract', 'validate', ...d]);
    writeFileSync(file, '{}');
    await cli.main(['contract', 'validate', '--file', file, '--json']);
    writeCache(script);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.exitCode = 0;
}
void main();
