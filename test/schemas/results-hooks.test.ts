/** Real --json outputs of hooks install, uninstall and status against their schemas. */
import { describe, it } from 'vitest';
import { rows, runCase } from '../helpers/schemas/case.js';
import { HOOKS_CASES } from '../helpers/schemas/cases/hooks.js';

describe('hooks verbs: every --json shape matches its schema', () => {
  it.each(rows(HOOKS_CASES))('%s', (_title, c) => runCase(c));
});
