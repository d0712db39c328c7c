/** The verbs of the built CLI, read from the oclif manifest the build writes (oclif.manifest.json). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './cli.js';

export interface ManifestCommand {
  id: string;
  summary?: string;
  description?: string;
  examples?: string[];
  flags: Record<string, { name: string; type: 'boolean' | 'option'; multiple?: boolean }>;
  args: Record<string, { name: string; required?: boolean }>;
}

export function manifestCommands(): ManifestCommand[] {
  const manifest = JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, ManifestCommand>;
  };
  return Object.values(manifest.commands);
}

/** Every verb as typed: `contract set` (the `help` verb included). */
export const verbIds = (): string[] =>
  manifestCommands()
    .map((c) => c.id.replaceAll(':', ' '))
    .sort();
