/**
 * The one base class of every verb. oclif parses flags and arguments and routes to the class; this class maps
 * everything that can go wrong into the tool's error model (one line or one JSON object, an exit code from the
 * documented table, never a stack trace) and builds the CommandContext that `perform()` works with.
 */
import { Command } from '@oclif/core/command';
import { colourLevel, paint } from '../render/colour.js';
import { escapeControls } from '../render/escape.js';
import type { CommandContext, CommandIO, CommandResult, FlagValues } from './command.js';
import { processIO, type ExecuteIO } from './io.js';
import { errorOutput, finish, resultOutput, type Output, type VerbInfo } from './output.js';
import { usageFromParseError } from './parse-errors.js';

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

  /** oclif's entry (Command.run): the verb on the process's own input and output. */
  async run(): Promise<void> {
    process.exitCode = await this.execute(processIO());
  }

  /**
   * The verb on `io` (the in-process core): parse, perform, and the result or failure written through `io`. Returns
   * the exit code; nothing process-wide is read or changed.
   */
  async execute(io: ExecuteIO): Promise<number> {
    const { json, parse } = this.split();
    const emit = (out: Output): number => finish(out, levels(io, json, out), io);
    let ctx: CommandContext;
    try {
      const { flags, args, rest } = await parse();
      ctx = this.context(flags, args, rest, json, io);
    } catch (e) {
      // A failed parse is reported here; tell oclif the arguments were looked at (else it warns under NODE_ENV=test).
      this.parsed = true;
      return emit(errorOutput(e, json, this.verbInfo, io.env));
    }
    try {
      return emit(resultOutput(await this.perform(ctx), json));
    } catch (e) {
      return emit(errorOutput(e, json, this.verbInfo, io.env));
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
    // A call of a long-running caller starts now (a time budget counts from here, not from the caller's start).
    const base: ExecuteIO = {
      ...io,
      startedAt: performance.now(),
      isTTY: (fd) => (fd === 0 ? io.stdinIsTTY : false),
    };
    return this.perform({ ...this.context(flags, args, rest, json, base), ...io });
  }

  /** argv split at `--` (passthrough), JSON mode decided, and the parse of the verb's own part mapped into USAGE. */
  private split(): {
    json: boolean;
    parse: () => Promise<{ flags: FlagValues; args: Record<string, string | undefined>; rest: string[] }>;
  } {
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
    process.exitCode = finish(
      errorOutput(err, false, this.verbInfo, process.env),
      { stdout: 0, stderr: 0 },
      processIO(),
    );
    await Promise.resolve();
  }

  private context(
    flags: FlagValues,
    args: Record<string, string | undefined>,
    rest: string[],
    json: boolean,
    io: ExecuteIO,
  ): CommandContext {
    const stderrLevel = (): 0 | 1 | 2 | 3 => colourLevel(io.env, io.isTTY(2), json);
    return {
      id: this.verbInfo.id,
      flags,
      args,
      rest,
      env: io.env,
      cwd: io.cwd,
      json,
      notice: (line) =>
        void io.stderr(paint(escapeControls(line.endsWith('\n') ? line : `${line}\n`), 'stderr', stderrLevel())),
      stdout: io.stdout,
      stderr: io.stderr,
      passthrough: io.passthrough,
      script: io.script,
      readStdin: io.readStdin,
      get stdinIsTTY() {
        return io.isTTY(0);
      },
      startedAt: io.startedAt ?? 0,
      exitProcess: io.exitProcess,
    };
  }
}

/** Colour levels per stream for an output (none when nothing is printed, so no terminal is asked about). */
function levels(io: ExecuteIO, json: boolean, out: Output): { stdout: 0 | 1 | 2 | 3; stderr: 0 | 1 | 2 | 3 } {
  if (out.stdout === undefined && out.stderr === undefined) return { stdout: 0, stderr: 0 };
  return { stdout: colourLevel(io.env, io.isTTY(1), json), stderr: colourLevel(io.env, io.isTTY(2), json) };
}

const spaced = (id: string): string => id.replaceAll(':', ' ');
