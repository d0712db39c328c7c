/**
 * How each real harness is started headless against the fake model server: its environment (a private HOME and
 * harness home, vendor endpoints pointed at 127.0.0.1, updates and telemetry off, proxies pointed at a closed local
 * port), the files it needs before its first run, and its argv. Hook wiring is not here: see wiring.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Api } from './fake-model.js';

export type HarnessName = 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode' | 'qwen';
/** The harnesses driven as one headless process per turn (OpenCode is driven as a server: opencode.harness.ts). */
export const HARNESSES: HarnessName[] = ['claude', 'codex', 'gemini', 'copilot', 'qwen'];

/** One isolated run's folders, all under one temp folder. */
export interface RunDirs {
  root: string;
  /** HOME of the harness. */
  home: string;
  /** The project the harness works in (a git repository). */
  project: string;
  /** Codex's CODEX_HOME. */
  codexHome: string;
}

export interface Recipe {
  api: Api;
  /** Files the harness needs before it starts (user settings, provider config). */
  prepare(dirs: RunDirs, modelUrl: string): void;
  env(dirs: RunDirs, modelUrl: string): Record<string, string>;
  argv(prompt: string): string[];
}

/** A port nothing listens on: a harness that ignores its endpoint settings and honours proxies fails fast. */
const DEAD_PROXY = 'http://127.0.0.1:9';
export const FAKE_MODEL = 'fake-model';

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

/** The environment every harness run starts from: nothing inherited but PATH and the locale. */
export function baseHarnessEnv(dirs: RunDirs): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    LANG: 'C.UTF-8',
    HOME: dirs.home,
    TMPDIR: join(dirs.root, 'tmp'),
    XDG_CONFIG_HOME: join(dirs.home, '.config'),
    XDG_CACHE_HOME: join(dirs.home, '.cache'),
    XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
    XDG_STATE_HOME: join(dirs.home, '.local', 'state'),
    NO_COLOR: '1',
    TERM: 'dumb',
    CI: '1',
    DO_NOT_TRACK: '1',
    HTTP_PROXY: DEAD_PROXY,
    HTTPS_PROXY: DEAD_PROXY,
    ALL_PROXY: DEAD_PROXY,
    http_proxy: DEAD_PROXY,
    https_proxy: DEAD_PROXY,
    all_proxy: DEAD_PROXY,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

export const RECIPES: Record<HarnessName, Recipe> = {
  claude: {
    api: 'anthropic',
    prepare: () => undefined,
    env: (dirs, url) => ({
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'sk-ant-fake',
      CLAUDE_CONFIG_DIR: join(dirs.home, '.claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    }),
    argv: (prompt) => ['-p', prompt],
  },
  codex: {
    api: 'responses',
    prepare: (dirs, url) => {
      mkdirSync(dirs.codexHome, { recursive: true });
      writeFileSync(
        join(dirs.codexHome, 'config.toml'),
        [
          `model = "${FAKE_MODEL}"`,
          'model_provider = "fake"',
          'check_for_update_on_startup = false',
          '',
          '[analytics]',
          'enabled = false',
          '',
          // What Codex's first-run question writes when the user trusts the project: Codex then reads the
          // project's .codex/ (its hooks among them). Hook trust is not here: `hooks install` writes it.
          `[projects.${JSON.stringify(dirs.project)}]`,
          'trust_level = "trusted"',
          '',
          '[model_providers.fake]',
          'name = "fake"',
          `base_url = "${url}/v1"`,
          'wire_api = "responses"',
          'env_key = "FAKE_MODEL_API_KEY"',
          'request_max_retries = 0',
          'stream_max_retries = 0',
          '',
        ].join('\n'),
      );
    },
    env: (dirs) => ({ CODEX_HOME: dirs.codexHome, FAKE_MODEL_API_KEY: 'sk-fake' }),
    argv: (prompt) => ['exec', '--color', 'never', prompt],
  },
  gemini: {
    api: 'gemini',
    prepare: (dirs) => {
      writeJson(join(dirs.home, '.gemini', 'settings.json'), {
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      });
      // What Gemini CLI's first-run "Trust folder" answer writes: it then reads the project's .gemini/settings.json.
      writeJson(join(dirs.home, '.gemini', 'trustedFolders.json'), { [dirs.project]: 'TRUST_FOLDER' });
    },
    env: (_dirs, url) => ({
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_API_KEY: 'fake',
    }),
    argv: (prompt) => ['-p', prompt],
  },
  copilot: {
    api: 'chat',
    prepare: () => undefined,
    env: (_dirs, url) => ({
      COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
      COPILOT_PROVIDER_API_KEY: 'fake',
      COPILOT_MODEL: FAKE_MODEL,
      COPILOT_ALLOW_ALL: 'true',
      COPILOT_AUTO_UPDATE: 'false',
    }),
    argv: (prompt) => ['-p', prompt],
  },
  opencode: {
    api: 'chat',
    // The user's own step: a provider in the project's opencode.json, an OpenAI-compatible endpoint (a provider
    // package OpenCode bundles, so nothing is fetched for it).
    prepare: (dirs, url) =>
      writeJson(join(dirs.project, 'opencode.json'), {
        model: `fake/${FAKE_MODEL}`,
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'fake',
            options: { baseURL: `${url}/v1`, apiKey: 'fake' },
            models: { [FAKE_MODEL]: { name: 'fake' } },
          },
        },
      }),
    env: () => ({ OPENCODE_DISABLE_AUTOUPDATE: 'true' }),
    argv: (prompt) => ['run', prompt],
  },
  qwen: {
    api: 'chat',
    prepare: (dirs) => {
      // The user's settings: an OpenAI-compatible provider (its endpoint, key and model from the environment), no
      // usage statistics, telemetry or update checks, no auto-memory (a background model request after the turn,
      // which would count as a turn here), and folder trust on (off by default: then every folder is trusted and
      // the step below changes nothing).
      writeJson(join(dirs.home, '.qwen', 'settings.json'), {
        security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: true } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false },
        memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
      });
      // What Qwen Code's first-run "Trust folder" answer writes: it then reads the project's .qwen/settings.json.
      writeJson(join(dirs.home, '.qwen', 'trustedFolders.json'), { [dirs.project]: 'TRUST_FOLDER' });
    },
    env: (_dirs, url) => ({
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: 'fake',
      OPENAI_MODEL: FAKE_MODEL,
    }),
    argv: (prompt) => ['-p', prompt],
  },
};

/**
 * A harness's shell tool as the model calls it, and the argv of a headless run in which the user lets the model use
 * it: each harness's own permission flag (Claude Code --allowedTools, Codex's workspace-write sandbox, Gemini's
 * approval mode; Copilot's COPILOT_ALLOW_ALL is in its recipe). Hook trust is not touched.
 */
export interface ShellUse {
  name: string;
  input: (cmd: string) => Record<string, unknown>;
  argv: (prompt: string) => string[];
}

export const SHELL: Record<'claude' | 'codex' | 'gemini' | 'copilot' | 'qwen', ShellUse> = {
  claude: {
    name: 'Bash',
    input: (command) => ({ command, description: 'run a command' }),
    argv: (p) => ['-p', p, '--allowedTools', 'Bash'],
  },
  codex: {
    // Codex 0.171.0 offers exec_command ({cmd}); its `shell` is an unsupported call there. Not a login shell (that
    // would reset PATH from the machine's profile); a command may take up to 30 s before Codex moves on.
    name: 'exec_command',
    input: (cmd) => ({ cmd, login: false, yield_time_ms: 30_000 }),
    argv: (p) => ['exec', '--color', 'never', '--sandbox', 'workspace-write', p],
  },
  gemini: {
    name: 'run_shell_command',
    input: (command) => ({ command, description: 'run a command' }),
    argv: (p) => ['-p', p, '--approval-mode', 'yolo'],
  },
  copilot: {
    name: 'bash',
    input: (command) => ({ command, description: 'run a command' }),
    argv: (p) => ['-p', p],
  },
  qwen: {
    // Gemini CLI's shell tool, kept by its fork; the user lets it run with Qwen Code's own approval mode.
    name: 'run_shell_command',
    input: (command) => ({ command, description: 'run a command' }),
    argv: (p) => ['-p', p, '--approval-mode', 'yolo'],
  },
};
