// Preloaded (node --import) into a real `handoff hooks install`: the install then names $TAP_AS_SCRIPT as handoff's
// bin/run.js in the hook commands it writes (and trusts), as when handoff is installed at that place. wiring.ts.
import process from 'node:process';

process.argv[1] = process.env.TAP_AS_SCRIPT;
