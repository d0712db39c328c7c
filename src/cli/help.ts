/**
 * oclif's help, plus the two sections every handoff help page owes its reader: the environment (root help) and the
 * exit-code table (root and every verb; the gate's hook protocol for `contract gate`). Loaded only when help runs.
 */
import type { Command } from '@oclif/core/command';
import { Help } from '@oclif/core/help';
import type { Writer } from '../render/result.js';

export const EXIT_TABLE = `EXIT CODES
  0   success, including an idempotent no-op
  1   rejected: a validation failure or a refused state transition
  2   usage error: bad flag, bad id, malformed JSON argument, unusable input file
  3   not found
  4   store or data-root error (also DRAFT_LOCKED, DRAFT_WRITE_FAILED, DRAFT_APPEND_FAILED, RECEIPT_CAPTURE_FAILED)
  70  internal error (a bug); HANDOFF_DEBUG=1 shows the stack`;

export const HOOK_EXIT_TABLE = `EXIT CODES (hook protocol)
  0   allow the stop (a systemMessage may be printed)
  2   block the stop (the reason is on stderr)
  1   the gate cannot decide: the stop is not gated
  70  internal error (a bug); HANDOFF_DEBUG=1 shows the stack`;

export const ENVIRONMENT = `ENVIRONMENT
  HANDOFF_HOME       data root (drafts, evidence, the store); default $XDG_DATA_HOME/handoff, else ~/.local/share/handoff
  HANDOFF_STORE_URL  postgres://…: use that PostgreSQL store instead of the SQLite file (unset: SQLite)
  HANDOFF_DB         the SQLite store file (relative paths resolve against the current directory); default <root>/handoff.db
  HANDOFF_WORKSPACE  workspace name when --workspace is not given; default the git top-level's (or the cwd's) folder name
  HANDOFF_MAX_ENVELOPE_BYTES  the largest envelope a write may store (compact JSON); default 1048576 (1 MiB)
  HANDOFF_STORE_TIMEOUT_MS  the time limit of one PostgreSQL call in ms (past it: STORE_UNREACHABLE); default 10000
  HANDOFF_SIGNING_KEY  a private key file (handoff key generate): finalize, receipts and decisions are signed with it
  HANDOFF_APPROVER_KEYS  a file of trusted approvers' public keys: an approved approval must carry one's signature
  HANDOFF_APPROVAL_PATTERNS  approval patterns every dispatch adds (Bash(…), Write(…), Edit(…), mcp__S__T; ; between)
  HANDOFF_DEBUG=1    print the stack of an internal error (exit 70)
  NO_COLOR           no colour in human output (colour is used only on a terminal; FORCE_COLOR forces it)`;

export default class HandoffHelp extends Help {
  /** Where the pages go (the verb's stdout); oclif's own default is console.log. */
  private out: Writer = (chunk) => (console.log(String(chunk).replace(/\n$/, '')), true);

  /** Prints through `out` from now on. */
  printTo(out: Writer): this {
    this.out = out;
    return this;
  }

  /** oclif prints every line through log() (one string per call, joined with spaces as console.log would). */
  protected override log(...args: string[]): void {
    this.out(`${args.join(' ')}\n`);
  }

  /** The root page lists every verb (there are few), then the environment and the exit codes. */
  protected override async showRootHelp(): Promise<void> {
    this.log(this.formatRoot());
    this.log('');
    this.log(this.formatTopics(this.sortedTopics.filter((t) => !t.name.includes(':'))));
    this.log('');
    this.log(this.formatCommands(this.sortedCommands));
    this.log('');
    this.log(`${ENVIRONMENT}\n\n${EXIT_TABLE}\n`);
    await Promise.resolve();
  }

  /** Exactly what `handoff TOPIC VERB --help` prints: the summary, then the command's sections. */
  commandPage(command: Command.Loadable): string {
    const summary = this.summary(command);
    return `${summary ? `${summary}\n\n` : ''}${this.formatCommand(command)}\n`;
  }

  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    this.log(this.commandPage(command));
    await Promise.resolve();
  }

  override formatCommand(command: Command.Loadable): string {
    const table = command.id === 'contract:gate' || command.id === 'contract gate' ? HOOK_EXIT_TABLE : EXIT_TABLE;
    return `${super.formatCommand(command)}\n\n${table}`;
  }
}
