/**
 * The import-boundary rule of eslint.config.js: the rules ESLint resolves for a file of each layer, run on small
 * texts with a forbidden import, must report it; allowed imports must pass. The tree itself is held to the rule by
 * `npm run lint`.
 */
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const RULES = ['no-restricted-imports', 'no-restricted-syntax', '@typescript-eslint/no-restricted-imports'] as const;
const eslint = new ESLint({ cwd: ROOT });

/** The boundary rules' messages for `text` as if it were the file `path` (only those rules, no type program). */
async function boundaryErrors(path: string, text: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(path)) as { rules?: Record<string, Linter.RuleEntry> };
  const rules = Object.fromEntries(
    RULES.filter((r) => config.rules?.[r] !== undefined).map((r) => [r, config.rules![r]]),
  );
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    text,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { '@typescript-eslint': tseslint.plugin },
        rules,
      },
    ],
    path,
  );
  return messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the import-boundary lint rule', () => {
  it.each([
    ['src/store/x.ts', "import type { CommandContext } from '../cli/command.js';", 'no-restricted-imports'],
    ['src/receipts/x.ts', "import { stdStream } from '../cli/stdio.js';", 'no-restricted-imports'],
    ['src/evidence/x.ts', "export { readInput } from '../commands/evidence/add.js';", 'no-restricted-imports'],
    ['src/validator/rules/x.ts', "import { tools } from '../../mcp/tools.js';", 'no-restricted-imports'],
    ['src/gate/x.ts', "export async function f() { return import('../mcp/server.js'); }", 'no-restricted-syntax'],
    ['src/drafts/x.ts', "export const m: unknown = require('../cli/registry.js');", 'no-restricted-syntax'],
    ['src/index.ts', "import { main } from './cli/main.js';", 'no-restricted-imports'],
    ['src/store/x.ts', "import { checkReceiptsIn } from '../receipts/checks.js';", 'no-restricted-imports'],
    ['src/store/x.ts', "import type { ReceiptRow } from '../receipts/row.js';", 'no-restricted-imports'],
    ['src/store/x.ts', "import { writeDraft } from '../drafts/write.js';", 'no-restricted-imports'],
    ['src/validator/x.ts', "import type { Store } from '../store/store.js';", 'no-restricted-imports'],
    ['src/codes/x.ts', "import { showReceipt } from '../receipts/show.js';", 'no-restricted-imports'],
    ['src/render/x.ts', "import * as Flags from '@oclif/core/flags';", 'no-restricted-imports'],
    ['src/render/x.ts', "import { writeDraft } from '../drafts/write.js';", '@typescript-eslint/no-restricted-imports'],
    [
      'src/render/x.ts',
      "import { openStore } from '../store/open-store.js';",
      '@typescript-eslint/no-restricted-imports',
    ],
    ['src/render/x.ts', "import { writeFileSync } from 'node:fs';", '@typescript-eslint/no-restricted-imports'],
  ])('%s: %s is reported (%s)', async (path, text, rule) => {
    const errors = await boundaryErrors(path, text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^${rule}: `));
  });

  it.each([
    ['src/commands/x.ts', "import type { CommandContext } from '../cli/command.js';"],
    ['src/mcp/x.ts', "import { writeAndRender } from '../cli/write-verbs.js';"],
    ['src/cli/x.ts', "import * as Flags from '@oclif/core/flags';"],
    ['src/receipts/x.ts', "import { readRegularFile } from '../input/files.js';"],
    ['src/store/x.ts', "import type { ReceiptRow } from './receipt-row.js';"],
    ['src/store/x.ts', "import { validateEnvelope } from '../validator/index.js';"],
    ['src/finalize/x.ts', "export async function f() { return import('../store/open-store.js'); }"],
    ['src/validator/rules/x.ts', "import { AGENT_STATES } from '../../envelope/vocabulary.js';"],
    ['src/render/x.ts', "import type { WriteOutcome } from '../drafts/write.js';"],
    ['src/render/x.ts', "import type { ApprovalRow } from '../store/approvals.js';"],
    ['src/drafts/x.ts', "import { writeFileSync } from 'node:fs';"],
  ])('%s: %s is allowed', async (path, text) => {
    expect(await boundaryErrors(path, text)).toEqual([]);
  });
});
