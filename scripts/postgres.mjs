// npm run postgres [-- --dir FOLDER]: a PostgreSQL server in the foreground (amendments-2.md §P5). Prints the
// HANDOFF_STORE_URL of its `handoff` database (created if absent) and runs until Ctrl-C or SIGTERM, then stops the
// server and removes its temp folder. With --dir, the cluster is kept in FOLDER and reused by the next start.
import { setInterval } from 'node:timers';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startServer } from './pg-server.mjs';

const { values } = parseArgs({ options: { dir: { type: 'string' } } });
const server = await startServer({ dir: values.dir });
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

console.log(`HANDOFF_STORE_URL=${server.url('handoff')}`);
console.log(`# PostgreSQL on 127.0.0.1:${server.port}, data in ${server.dir}${values.dir ? '' : ' (removed on exit)'}; Ctrl-C stops it.`);

let stopping = false;
const stop = (signal) => {
  if (stopping) return;
  stopping = true;
  server.stop().then(
    () => process.exit(0),
    (e) => {
      console.error(`stopping the server after ${signal} failed: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
// Keep the event loop alive until a signal arrives.
setInterval(() => undefined, 1 << 30);
