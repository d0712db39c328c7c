/** Renders docs/errors.md from the registry: one section per code, and the exit-code table. */
import { VERB_EXITS, type VerbExits } from './exits.js';
import { WAIT_EXITS } from './wait-exits.js';
import { ALL_CODES, AREAS } from './index.js';

const EXIT_ROWS: [number, string][] = [
  [0, 'success, including an idempotent no-op'],
  [1, 'rejected: a validation failure or a refused state transition'],
  [2, 'usage error: bad flag, bad id, malformed JSON argument, unusable input file'],
  [3, 'not found'],
  [4, 'store error (also DRAFT_LOCKED, DRAFT_WRITE_FAILED, DRAFT_APPEND_FAILED)'],
  [70, 'internal error (a bug): one line; the stack only with HANDOFF_DEBUG=1'],
];

export function renderErrorsDoc(): string {
  const lines: string[] = [
    '# Error codes and exit codes',
    '',
    '<!-- Generated from src/codes/ by `npm run docs:errors`; a test keeps this file and the registry in step. -->',
    '',
    'Every failure has a stable UPPER_SNAKE code, one line of message (in human mode ending in `[CODE]`), and an exit',
    'code from one table. With `--json` the failure is one object on stdout: `{"status":"rejected"|"error","code":…,',
    '"error":…}`, or for a validation rejection `{"status":"rejected","codes":[…],"errors":[{"code","path","detail"}…],',
    '"repair":…}`.',
    '',
    '## Exit codes',
    '',
    '| Exit | Meaning |',
    '|---|---|',
    ...EXIT_ROWS.map(([e, m]) => `| ${e} | ${m} |`),
    '',
    'Exceptions: `handoff contract gate` speaks the hook protocol (0 allow, 2 block, 1 cannot decide: the stop is not',
    "gated); `handoff evidence run`, once it has recorded a receipt, exits with the command's own status (124 on",
    'timeout, 128+n on signal n, 127 when the command could not be started; 4 when the draft append failed).',
    '',
    "`handoff contract wait` is the second exception: its exit says how the chain's live tip closed (and, as usual, 2 on",
    'a usage error, 3 when the contract has no row, 4 on a store error):',
    '',
    '| Exit | contract wait |',
    '|---|---|',
    ...WAIT_EXITS.map(([e, m]) => `| ${e} | ${m} |`),
    '',
  ];
  for (const area of AREAS) {
    lines.push(`## ${area.title}`, '');
    for (const c of area.codes) {
      lines.push(`### ${c.code}`, '');
      lines.push(`- **Exit:** ${c.exit}${byVerb(c.code)}`);
      lines.push(`- **Where:** ${c.where}`);
      if (c.path) lines.push(`- **Path:** ${c.path}`);
      lines.push(`- **When:** ${c.when}`);
      lines.push(`- **Repair:** ${c.repair}`, '');
    }
  }
  lines.push(`${ALL_CODES.length} codes.`, '');
  return lines.join('\n');
}

/** `; 3 in evidence show` for each verb whose own exit for this code differs from the default. */
function byVerb(code: string): string {
  return Object.entries(VERB_EXITS as Record<string, VerbExits>)
    .flatMap(([verb, table]) => {
      const exit = (table as Record<string, number | undefined>)[code];
      return exit === undefined ? [] : [`; ${exit} in \`handoff ${verb}\``];
    })
    .join('');
}
