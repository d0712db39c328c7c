// Types of scripts/pg-server.mjs for the TypeScript tests that import it (test/helpers/pg-global-setup.ts).

export interface StartOptions {
  /** The folder to keep the server in; default a new temp folder that stop() removes. */
  dir?: string;
  /** Extra server settings, `name=value`. */
  settings?: string[];
  /** Receives the server's and initdb's output. */
  log?: (line: string) => void;
}

export interface RunningServer {
  port: number;
  dir: string;
  /** postgres://handoff:…@127.0.0.1:PORT/DATABASE (default database `postgres`). */
  url(database?: string): string;
  stop(): Promise<void>;
}

export function startServer(options?: StartOptions): Promise<RunningServer>;
