/**
 * docs/mcp.md's example session is real output: each call of the page is sent to a real server (the built binary,
 * over the SDK's client, in a project folder named `payments`), and each answer must equal the page's, object and
 * text, once the draft id the server minted is read as the page's.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO, tempHome } from '../helpers/cli.js';
import { connect, type McpSession } from '../helpers/mcp.js';

interface Step {
  tool: string;
  args: Record<string, unknown>;
  isError: boolean;
  structured: Record<string, unknown>;
  text: string;
}

/** The `text` block of the page's example session: `→ tool {args}`, `← [isError: ]{object}`, then the text indented. */
function exampleSteps(): Step[] {
  const doc = readFileSync(join(REPO, 'docs', 'mcp.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## 6. An example session'));
  const block = /```text\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('docs/mcp.md has no example session block');
  const steps: Step[] = [];
  const lines = block.split('\n');
  /** A JSON value starting on line i after `prefix`, continued on lines indented by three spaces until it parses. */
  const json = (i: number, first: string): [unknown, number] => {
    let text = first;
    for (let j = i; ; j++) {
      try {
        return [JSON.parse(text), j];
      } catch {
        if (!lines[j + 1]?.startsWith('   ')) throw new Error(`docs/mcp.md example: no JSON at line ${i + 1}: ${text}`);
        text += lines[j + 1].slice(3);
      }
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const call = /^→ (\w+) (.*)$/.exec(lines[i]);
    if (call === null) continue;
    const [args, end] = json(i, call[2]);
    i = end + 1;
    const answer = /^← (isError: )?(.*)$/.exec(lines[i] ?? '');
    if (answer === null) throw new Error(`docs/mcp.md example: ${call[1]} has no answer line`);
    const [structured, last] = json(i, answer[2]);
    const text: string[] = [];
    for (i = last + 1; i < lines.length && lines[i].startsWith('  '); i++) text.push(lines[i].slice(2));
    steps.push({
      tool: call[1],
      args: args as Record<string, unknown>,
      isError: answer[1] !== undefined,
      structured: structured as Record<string, unknown>,
      text: text.join('\n'),
    });
  }
  return steps;
}

const sessions: McpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const swap = <T>(value: T, from: string, to: string): T => JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T;

describe('docs/mcp.md example session', () => {
  it('every answer on the page is what a real server answers', async () => {
    const steps = exampleSteps();
    expect(steps.length).toBeGreaterThanOrEqual(8);
    const root = tempHome();
    const project = join(root, 'payments');
    mkdirSync(project);
    const s = await connect(join(root, 'data'), [], {}, { cwd: project });
    sessions.push(s);
    const docId = String(steps[0].structured.draft_id);
    let realId: string | undefined;
    for (const step of steps) {
      const args = realId === undefined ? step.args : swap(step.args, docId, realId);
      const r = await s.call(step.tool, args);
      realId ??= String(r.structuredContent?.draft_id);
      // The draft id (and the agent id, its prefix) the server minted, read as the page's.
      const asDoc = <T>(v: T): T => swap(swap(v, realId!, docId), realId!.split('.')[0], docId.split('.')[0]);
      const shown = `${step.tool} ${JSON.stringify(step.args)}`;
      expect(r.isError ?? false, shown).toBe(step.isError);
      expect(asDoc(r.structuredContent), shown).toEqual(step.structured);
      expect(asDoc(r.content.map((c) => c.text ?? '').join('\n')), shown).toBe(step.text);
    }
  });
});
