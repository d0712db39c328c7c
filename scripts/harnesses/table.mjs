// The per-harness table the harness suite prints: what each real harness sent its stop hook, how the gate's answer
// looked, and how many hook calls and model requests each scenario took.

const SCENARIOS = [
  ['blocked', 'unfinished contract'],
  ['finalized', 'finalized contract'],
  ['exit1', 'gate exits 1'],
];

function cell(o) {
  if (!o) return 'not run';
  const reason = o.reasonSeenAt === null ? '' : `, reason in request ${o.reasonSeenAt + 1}`;
  const n = (count, what) => `${count} ${what}${count === 1 ? '' : 's'}`;
  return `${n(o.hookCalls, 'hook call')}, ${n(o.modelRequests, 'model request')}${reason}, ${(o.ms / 1000).toFixed(1)} s`;
}

/** A Markdown table from the suite's observations ({ harness: { scenario: Observation } }) and the versions. */
export function formatTable(observed, versions = {}) {
  const rows = [['harness', 'version', 'hook input keys', 'block answer', ...SCENARIOS.map(([, title]) => title)]];
  for (const harness of ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'qwen']) {
    const byScenario = observed[harness] ?? {};
    const any = byScenario.blocked ?? byScenario.finalized ?? byScenario.exit1;
    const answers = byScenario.blocked?.answers ?? [];
    rows.push([
      harness,
      /\d+\.\d+\.\d+/.exec(versions[harness] ?? '')?.[0] ?? '',
      any ? any.inputKeys.join(', ') : '',
      answers.length > 0 ? answers[0] : '',
      ...SCENARIOS.map(([key]) => cell(byScenario[key])),
    ]);
  }
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(rows[0]), line(rows[0].map(() => '---')), ...rows.slice(1).map(line)].join('\n');
}
