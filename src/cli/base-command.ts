/**
 * The one base class of every verb. oclif parses flags and arguments and routes to the class; this class maps
 * everything that can go wrong into the tool's error model (one line or one JSON object, an exit code from the
 * documented table, never a stack trace) and builds the CommandContext that `perform()` works with.
 */
import { Command } from '@oclif/core/command';
import { colourLevel, paint } from '../render/colour.js';
import { escapeControls } from '../render/escape.js';
import type { CommandContext, CommandIO, CommandResult, FlagValues } from './command.js';
import { errorOutput, finish, resultOutput, type Output, type VerbInfo } from './output.js';
import { usageFromParseError } from './parse-errors.js';
import { readStdin } from './stdin.js';
import { isTerminal, writeStd } from './stdio.js';

export abstract class HandoffCommand extends Command {
  /** `flag`: a boolean `--json` switches JSON mode; `always`: the verb always prints one JSON object (fill, patch). */
  static jsonMode: 'flag' | 'always' = 'flag';
  /** Hook semantics (contract gate): a failure of the verb itself exits 1 ("stop not gated"), never 2/3/4. */
  static failOpen = false;
  /** Accepts `-- CMD ARG...` after its flags (evidence run). */
  static passthrough = false;
  /** Rewrites argv before parsing (a flag whose value is optional, such as `--cut`). */
  static preprocess: ((argv: string[]) => string[]) | undefined;
  /** Groups of flags of which exactly one must be given (shown in parentheses in the generated usage line). */
  static oneOf: readonly (readonly string[])[] = [];

  /** The verb itself. Throw HandoffError for operational failures; return validation rejections as results. */
  protected abstract perform(ctx: CommandContext): Promise<CommandResult> | CommandResult;

  private get verb(): typeof HandoffCommand {
    return this.constructor as typeof HandoffCommand;
  }

  private get verbInfo(): VerbInfo {
    const v = this.verb;
    const id = spaced(this.id ?? v.id);
    const usage = Array.isArray(v.usage) ? v.usage[0] : v.usage;
    // A verb's usage (generated, src/cli/usage.ts) leaves out its id, as oclif's help adds it.
    return { id, usage: `handoff ${id}${usage ? ` ${usage}` : ''}`, failOpen: v.failOpen };
  }

  protected override async init(): Promise<void> {
    // oclif's default init only logs and checks deprecations; nothing of it applies here.
  }

  async run(): Promise<void> {
    const { json, parse } = this.split();
    const emit = (out: Output): void => finish(out, this.levels(json, out));
    let ctx: CommandContext;
    try {
      const { flags, args, rest } = await parse();
      ctx = this.context(flags, args, rest, json);
    } catch (e) {
      // A failed parse is reported here; tell oclif the arguments were looked at (else it warns under NODE_ENV=test).
      this.parsed = true;
      emit(errorOutput(e, json, this.verbInfo));
      return;
    }
    try {
      emit(resultOutput(await this.perform(ctx), json));
    } catch (e) {
      emit(errorOutput(e, json, this.verbInfo));
    }
  }

  /**
   * The verb without a terminal, for a caller that renders the result itself (the MCP tools, src/mcp/): `argv` is
   * parsed by oclif exactly as for `run()`, then `perform()` runs on `io`. Nothing is printed and no exit code is set;
   * a failure is thrown (a parse error as the same USAGE error).
   */
  async invoke(io: CommandIO): Promise<CommandResult> {
    const { json, parse } = this.split();
    const { flags, args, rest } = await parse();
    return this.perform({ ...this.context(flags, args, rest, json), ...io });
  }

  /** argv split at `--` (passthrough), JSON mode decided, and the parse of the verb's own part mapped into USAGE. */
  private split(): { json: boolean; parse: () => Promise<{ flags: FlagValues; args: Record<string, string | undefined>; rest: string[] }> } {
    const v = this.verb;
    const raw = v.preprocess ? v.preprocess(this.argv) : this.argv;
    const at = v.passthrough ? raw.indexOf('--') : -1;
    const own = at === -1 ? raw : raw.slice(0, at);
    const rest = at === -1 ? [] : raw.slice(at + 1);
    const json = v.jsonMode === 'always' || (v.flags?.json?.type === 'boolean' && own.includes('--json'));
    const parse = async () => {
      const parsed = await this.parse(v, own).catch((e: unknown) => {
        throw usageFromParseError(e, Object.keys(v.flags ?? {}), v.passthrough) ?? e;
      });
      return { flags: parsed.flags as FlagValues, args: parsed.args as Record<string, string | undefined>, rest };
    };
    return { json, parse };
  }

  /** Never let oclif print an error or pick an exit code of its own. */
  protected override async catch(err: Error): Promise<void> {
    finish(errorOutput(err, false, this.verbInfo), { stdout: 0, stderr: 0 });
    await Promise.resolve();
  }

  private levels(json: boolean, out: Output): { stdout: 0 | 1 | 2 | 3; stderr: 0 | 1 | 2 | 3 } {
    if (out.stdout === undefined && out.stderr === undefined) return { stdout: 0, stderr: 0 };
    return {
      stdout: colourLevel(process.env, isTerminal(1), json),
      stderr: colourLevel(process.env, isTerminal(2), json),
    };
  }

  private context(flags: FlagValues, args: Record<string, string | undefined>, rest: string[], json: boolean): CommandContext {
    const stderrLevel = (): 0 | 1 | 2 | 3 => colourLevel(process.env, isTerminal(2), json);
    return {
      id: this.verbInfo.id,
      flags,
      args,
      rest,
      env: process.env,
      cwd: process.cwd(),
      json,
      notice: (line) => writeStd('stderr', paint(escapeControls(line.endsWith('\n') ? line : `${line}\n`), 'stderr', stderrLevel())),
      stdout: (text) => writeStd('stdout', text),
      stderr: (text) => writeStd('stderr', text),
      readStdin,
      get stdinIsTTY() {
        return isTerminal(0);
      },
    };
  }
}

const spaced = (id: string): string => id.replaceAll(':', ' ');

