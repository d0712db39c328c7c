// The shipped bundle, run in-process: a worker thread of the test's own process loads dist/cli/handoff.cjs once (as
// bin/run.js does, with its code cache) and runs each verb through its `execute(argv, io)` on buffers. The test's
// thread waits on a shared flag, so `run()` stays synchronous without starting a process (test/helpers/cli.ts).
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { loadBundle, BUNDLE } = require(workerData.bin);

const { exports: bundle } = loadBundle(true, BUNDLE);

parentPort.on('message', (msg) => {
  const { argv, env, cwd, stdin, flag, port } = msg;
  const done = (result) => {
    port.postMessage(result);
    port.close();
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  };
  bundle
    .execute(argv, { env, cwd, stdin, script: workerData.bin })
    .then(done, (e) =>
      done({ exit: 70, stdout: '', stderr: `execute threw: ${e && e.stack ? e.stack : String(e)}\n` }),
    );
});
