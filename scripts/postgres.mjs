// npm run postgres [-- --dir FOLDER] [--setting NAME=VALUE …] [--attached]: a PostgreSQL server in the foreground
//. Prints the HANDOFF_STORE_URL of its `handoff` database (created if absent) and runs until
// Ctrl-C or SIGTERM (with --attached: also until its stdin closes, so a parent that dies takes the server along),
// then stops the server and removes its temp folder. With --dir, the cluster is kept in FOLDER and reused.
// The test suite's global setup runs this script as a child process (test/helpers/pg-global-setup.ts).
import { setInterval } from 'node:timers';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startServer } from './pg-server.mjs';

const { values } = parseArgs({
  options: { dir: { type: 'string' }, setting: { type: 'string', multiple: true }, attached: { type: 'boolean' } },
});
const server = await startServer({ dir: values.dir, settings: values.setting ?? [] });
try {
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'handoff'");
  if (exists.rowCount === 0) await client.query('CREATE DATABASE handoff');
  await client.end();
} catch (e) {
  await server.stop();
  throw e;
}

let stopping = false;
const stop = (why) => {
  if (stopping) return;
  stopping = true;
  server.stop().then(
    () => process.exit(0),
    (e) => {
      console.error(`stopping the server after ${why} failed: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
if (values.attached) {
  process.stdin.on('end', () => stop('the end of stdin'));
  process.stdin.on('error', () => stop('an error on stdin'));
  process.stdin.resume();
}
// Keep the event loop alive until one of those arrives.
setInterval(() => undefined, 1 << 30);

console.log(`HANDOFF_STORE_URL=${server.url('handoff')}`);
console.log(
  `# PostgreSQL on 127.0.0.1:${server.port}, data in ${server.dir}${values.dir ? '' : ' (removed on exit)'}; Ctrl-C stops it.`,
);
