/**
 * The verbs whose `--json` output the schemas cover. The one place that knows where the verb list lives: today the
 * explicit command table of the hand-written framework; when the command layer moves to oclif, re-point this at its
 * manifest or command classes.
 */
import { COMMANDS } from '../../src/cli/registry.js';

export const publishedVerbs = (): string[] => Object.keys(COMMANDS).sort();
