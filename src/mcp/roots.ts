/**
 * The server's roots, inside which MCP file inputs must lie: the client's MCP roots (`roots/list`) when it declares
 * the capability and lists at least one `file://` root, else the directory the server runs in; plus every
 * `handoff mcp --allow-path DIR`. Each root is resolved through symlinks (one that does not exist is left out). The
 * client's list is asked for when first needed and again after it says the list changed.
 */
import { realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { HandoffError, usage } from '../errors.js';

/** What the server needs from the SDK to ask the client (undefined when the client declared no roots). */
export type ListClientRoots = () => Promise<{ roots: { uri: string }[] }>;

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** `--allow-path DIR`, each an existing directory, resolved against the server's directory (USAGE otherwise). */
export function allowedPaths(dirs: readonly string[], cwd: string): string[] {
  return dirs.map((dir) => {
    const path = real(resolve(cwd, dir));
    if (path === undefined) throw usage(`--allow-path ${JSON.stringify(dir)} does not exist`);
    if (!statSync(path).isDirectory()) throw usage(`--allow-path ${JSON.stringify(dir)} is not a directory`);
    return path;
  });
}

export class Roots {
  private client: Promise<string[]> | undefined;

  constructor(
    private readonly cwd: string,
    private readonly allowed: readonly string[],
    private readonly listClientRoots: () => ListClientRoots | undefined,
  ) {}

  /** The client said its roots changed: ask again on the next check. */
  invalidate(): void {
    this.client = undefined;
  }

  async current(): Promise<string[]> {
    const list = this.listClientRoots();
    const fromClient = list === undefined ? [] : await (this.client ??= this.fetch(list));
    const base = fromClient.length > 0 ? fromClient : [real(this.cwd) ?? this.cwd];
    return [...new Set([...base, ...this.allowed])];
  }

  private async fetch(list: ListClientRoots): Promise<string[]> {
    let roots: { uri: string }[];
    try {
      roots = (await list()).roots;
    } catch (e) {
      // Asked again on the next call; this one cannot tell what the client allows.
      this.client = undefined;
      throw new HandoffError(
        'PATH_OUTSIDE_ROOTS',
        `the client's roots could not be listed (${(e as Error).message}); nothing was read`,
      );
    }
    return roots.flatMap((r) => {
      if (!r.uri.startsWith('file://')) return [];
      let path: string;
      try {
        path = fileURLToPath(r.uri);
      } catch {
        return [];
      }
      const resolved = real(path);
      return resolved === undefined ? [] : [resolved];
    });
  }
}
