/**
 * The explicit command table of oclif's `explicit` strategy (package.json `oclif.commands`). Each entry is a getter,
 * so a verb's module is loaded only when oclif asks for that verb: with the manifest (oclif.manifest.json), help and
 * every other verb load no command module.
 *
 * The getters use `require`, which exists only in the CommonJS bundles the executable runs; esbuild turns each into a
 * lazily evaluated module of the bundle. Keep every specifier a string literal.
 *
 * The build writes two bundles from this table (docs/decisions.md, "Fast start"): dist/cli/handoff.cjs with every
 * verb, and dist/cli/handoff-hot.cjs, built with HANDOFF_HOT_BUNDLE defined true, which holds only the hot verbs
 * that bin/run.js sends to it (its HOT_VERBS). There every other getter is the `notHot` branch, so esbuild leaves
 * those verbs' modules out of that file.
 */
import type { Command } from '@oclif/core/command';

type CommandClass = typeof Command;
const load = (module: unknown): CommandClass => (module as { default: CommandClass }).default;

declare global {
  /**
   * Replaced by a constant in each bundle (scripts/build.mjs `define`), so esbuild folds each test of it and drops
   * the branch not taken; outside a bundle (tsc's output) it reads undefined. It stays written out in each getter: a
   * copy kept in a variable would not be folded.
   */
  var HANDOFF_HOT_BUNDLE: boolean | undefined;
}

/** A verb the hot bundle does not hold: bin/run.js never routes one there, so reaching this is a bug. */
function notHot(id: string): never {
  throw new Error(`internal: ${id} is not in dist/cli/handoff-hot.cjs; bin/run.js must run it from dist/cli/handoff.cjs`);
}

/* eslint-disable @typescript-eslint/no-require-imports */
export const COMMANDS: Record<string, CommandClass> = {
  get 'contract:init'() { return load(require('../commands/contract/init.js')); },
  get 'contract:set'() { return load(require('../commands/contract/set.js')); },
  get 'contract:add'() { return load(require('../commands/contract/add.js')); },
  get 'contract:fill'() { return load(require('../commands/contract/fill.js')); },
  get 'contract:patch'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:patch') : load(require('../commands/contract/patch.js')); },
  get 'contract:view'() { return load(require('../commands/contract/view.js')); },
  get 'contract:validate'() { return load(require('../commands/contract/validate.js')); },
  get 'contract:finalize'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:finalize') : load(require('../commands/contract/finalize.js')); },
  get 'contract:list'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:list') : load(require('../commands/contract/list.js')); },
  get 'contract:chain'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:chain') : load(require('../commands/contract/chain.js')); },
  get 'contract:gc'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:gc') : load(require('../commands/contract/gc.js')); },
  get 'contract:dispatch'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:dispatch') : load(require('../commands/contract/dispatch.js')); },
  get 'contract:claim'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:claim') : load(require('../commands/contract/claim.js')); },
  get 'contract:gate'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:gate') : load(require('../commands/contract/gate.js')); },
  get 'contract:verify'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('contract:verify') : load(require('../commands/contract/verify.js')); },
  get 'hooks:install'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('hooks:install') : load(require('../commands/hooks/install.js')); },
  get 'hooks:uninstall'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('hooks:uninstall') : load(require('../commands/hooks/uninstall.js')); },
  get 'hooks:status'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('hooks:status') : load(require('../commands/hooks/status.js')); },
  get 'approval:request'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('approval:request') : load(require('../commands/approval/request.js')); },
  get 'approval:decide'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('approval:decide') : load(require('../commands/approval/decide.js')); },
  get 'approval:list'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('approval:list') : load(require('../commands/approval/list.js')); },
  get 'approval:show'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('approval:show') : load(require('../commands/approval/show.js')); },
  get 'brief:add'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('brief:add') : load(require('../commands/brief/add.js')); },
  get 'brief:list'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('brief:list') : load(require('../commands/brief/list.js')); },
  get 'brief:show'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('brief:show') : load(require('../commands/brief/show.js')); },
  get 'evidence:add'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('evidence:add') : load(require('../commands/evidence/add.js')); },
  get 'evidence:list'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('evidence:list') : load(require('../commands/evidence/list.js')); },
  get 'evidence:show'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('evidence:show') : load(require('../commands/evidence/show.js')); },
  get 'evidence:orphans'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('evidence:orphans') : load(require('../commands/evidence/orphans.js')); },
  get 'evidence:run'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('evidence:run') : load(require('../commands/evidence/run.js')); },
  get 'evidence:receipts'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('evidence:receipts') : load(require('../commands/evidence/receipts.js')); },
  get 'key:generate'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('key:generate') : load(require('../commands/key/generate.js')); },
  get 'attest:export'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('attest:export') : load(require('../commands/attest/export.js')); },
  get 'attest:verify'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('attest:verify') : load(require('../commands/attest/verify.js')); },
  get mcp() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('mcp') : load(require('../commands/mcp.js')); },
  get 'store:copy'() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('store:copy') : load(require('../commands/store/copy.js')); },
  get help() { return globalThis.HANDOFF_HOT_BUNDLE ? notHot('help') : load(require('../commands/help.js')); },
};
