// npm run demo:pg [-- --script FILE]: the demo (scripts/demo.sh) on a PostgreSQL store. Starts
// its own server in a temp folder (scripts/pg-server.mjs: an unprivileged user when run as root, a free loopback port),
// runs the demo with HANDOFF_STORE_URL set to a fresh `handoff` database, then stops the server and removes the
// folder, whether the demo passed, failed or was interrupted. Exits with the demo's status. --script runs another
// bash script the same way (the test of this script uses it).
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startServer } from './pg-server.mjs';

const repo = resolve(dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({ options: { script: { type: 'string' } } });
const script = values.script ?? join(repo, 'scripts', 'demo.sh');

const server = await startServer();
console.error(`# PostgreSQL on 127.0.0.1:${server.port}, data in ${server.dir} (removed on exit)`);
let status;
let child;
const forward = (signal) => () => {
  if (child !== undefined) child.kill(signal);
};
process.on('SIGINT', forward('SIGINT'));
process.on('SIGTERM', forward('SIGTERM'));
try {
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  await admin.query('CREATE DATABASE handoff');
  await admin.end();
  child = spawn('bash', [script], {
    stdio: 'inherit',
    cwd: repo,
    env: { ...process.env, HANDOFF_STORE_URL: server.url('handoff') },
  });
  status = await new Promise((done) => {
    child.on('error', (e) => {
      console.error(`demo:pg: cannot run ${script}: ${e.message}`);
      done(1);
    });
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
} catch (e) {
  console.error(`demo:pg: ${e instanceof Error ? e.message : String(e)}`);
  status = 1;
} finally {
  await server
    .stop()
    .catch((e) => console.error(`demo:pg: stopping the server failed: ${e instanceof Error ? e.message : String(e)}`));
}
process.exit(status);
