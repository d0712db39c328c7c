/**
 * The verbs whose `--json` output the schemas cover: every verb of the oclif manifest but `help`, which prints a page,
 * `autocomplete`, which prints a shell script, and `mcp`, which serves JSON-RPC on stdio (its tool results carry the
 * verbs' own --json objects, checked by test/cli/mcp.test.ts), not a result, and `ui`, which serves a page over HTTP (its
 * answers are checked by test/ui/server.test.ts).
 */
import { verbIds } from '../commands.js';

export const publishedVerbs = (): string[] => verbIds().filter((id) => id !== 'help' && id !== 'mcp' && id !== 'ui' && id !== 'autocomplete');
