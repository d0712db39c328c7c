/**
 * The explicit command table of oclif's `explicit` strategy (package.json `oclif.commands`). Each entry is a getter,
 * so a verb's module is loaded only when oclif asks for that verb: with the manifest (oclif.manifest.json), help and
 * every other verb load no command module.
 *
 * The getters use `require`, which exists only in the CommonJS bundles the executable runs; esbuild turns each into a
 * lazily evaluated module of the bundle. Keep every specifier a string literal.
 *
 * The build writes four bundles from this table (docs/decisions.md, "Fast start"): dist/cli/handoff.cjs with every
 * verb, dist/cli/handoff-mcp.cjs with every verb and the MCP SDK (for `handoff mcp`), dist/cli/handoff-hot.cjs with
 * only the hot verbs (bin/run.js's HOT_VERBS), and dist/cli/handoff-stop.cjs with only the gate and finalize (its
 * STOP_VERBS); bin/run.js sends each verb to its bundle. For the last two the build replaces each other verb's module
 * with one that throws a named internal error (scripts/bundle/verb-tables.mjs), so this table is written once, with
 * no per-verb mark of where it goes.
 */
import type { Command } from '@oclif/core/command';

type CommandClass = typeof Command;
const load = (module: unknown): CommandClass => (module as { default: CommandClass }).default;

/* eslint-disable @typescript-eslint/no-require-imports */
export const COMMANDS: Record<string, CommandClass> = {
  get 'contract:init'() { return load(require('../commands/contract/init.js')); },
  get 'contract:set'() { return load(require('../commands/contract/set.js')); },
  get 'contract:add'() { return load(require('../commands/contract/add.js')); },
  get 'contract:fill'() { return load(require('../commands/contract/fill.js')); },
  get 'contract:patch'() { return load(require('../commands/contract/patch.js')); },
  get 'contract:view'() { return load(require('../commands/contract/view.js')); },
  get 'contract:validate'() { return load(require('../commands/contract/validate.js')); },
  get 'contract:finalize'() { return load(require('../commands/contract/finalize.js')); },
  get 'contract:list'() { return load(require('../commands/contract/list.js')); },
  get 'contract:chain'() { return load(require('../commands/contract/chain.js')); },
  get 'contract:wait'() { return load(require('../commands/contract/wait.js')); },
  get 'contract:gc'() { return load(require('../commands/contract/gc.js')); },
  get 'contract:dispatch'() { return load(require('../commands/contract/dispatch.js')); },
  get 'contract:claim'() { return load(require('../commands/contract/claim.js')); },
  get 'contract:gate'() { return load(require('../commands/contract/gate.js')); },
  get 'contract:verify'() { return load(require('../commands/contract/verify.js')); },
  get 'hooks:install'() { return load(require('../commands/hooks/install.js')); },
  get 'hooks:uninstall'() { return load(require('../commands/hooks/uninstall.js')); },
  get 'hooks:status'() { return load(require('../commands/hooks/status.js')); },
  get 'hooks:test'() { return load(require('../commands/hooks/test.js')); },
  get 'approval:request'() { return load(require('../commands/approval/request.js')); },
  get 'approval:decide'() { return load(require('../commands/approval/decide.js')); },
  get 'approval:list'() { return load(require('../commands/approval/list.js')); },
  get 'approval:show'() { return load(require('../commands/approval/show.js')); },
  get 'approval:gate'() { return load(require('../commands/approval/gate.js')); },
  get 'approval:wait'() { return load(require('../commands/approval/wait.js')); },
  get 'brief:add'() { return load(require('../commands/brief/add.js')); },
  get 'brief:list'() { return load(require('../commands/brief/list.js')); },
  get 'brief:show'() { return load(require('../commands/brief/show.js')); },
  get 'evidence:add'() { return load(require('../commands/evidence/add.js')); },
  get 'evidence:list'() { return load(require('../commands/evidence/list.js')); },
  get 'evidence:show'() { return load(require('../commands/evidence/show.js')); },
  get 'evidence:orphans'() { return load(require('../commands/evidence/orphans.js')); },
  get 'evidence:run'() { return load(require('../commands/evidence/run.js')); },
  get 'evidence:receipts'() { return load(require('../commands/evidence/receipts.js')); },
  get 'key:generate'() { return load(require('../commands/key/generate.js')); },
  get 'attest:export'() { return load(require('../commands/attest/export.js')); },
  get 'attest:verify'() { return load(require('../commands/attest/verify.js')); },
  get mcp() { return load(require('../commands/mcp.js')); },
  get ui() { return load(require('../commands/ui.js')); },
  get 'store:copy'() { return load(require('../commands/store/copy.js')); },
  get autocomplete() { return load(require('../commands/autocomplete.js')); },
  get help() { return load(require('../commands/help.js')); },
};
