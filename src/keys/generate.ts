/**
 * `handoff key generate`: a new key pair as PEM files, the private key created with mode 0600 (never widened by the
 * umask, never overwriting a file). The default folder is outside the data root (`$XDG_CONFIG_HOME/handoff/keys`,
 * else `~/.config/handoff/keys`), so an agent's data root never holds the key that signs its work.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { HandoffError, jsonQuote } from '../errors.js';
import type { Env } from '../paths.js';
import { keyIdOf, type KeyType } from './key-file.js';

export function defaultKeyDir(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base =
    xdg !== undefined && xdg.trim() !== '' && xdg.startsWith('/') ? xdg : join(env.HOME ?? homedir(), '.config');
  return join(base, 'handoff', 'keys');
}

export interface Generated {
  type: KeyType;
  keyId: string;
  privatePath: string;
  publicPath: string;
}

function pair(type: KeyType): { privateKey: KeyObject; publicKey: KeyObject } {
  return type === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

/** Writes `bytes` to a new file (O_EXCL) with `mode`; an existing file is KEY_EXISTS. */
function writeNew(path: string, bytes: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new HandoffError(
        'KEY_EXISTS',
        `${jsonQuote(path)} already exists; no key was written`,
        { path },
        'Pass --out with another folder, or move the old key aside.',
      );
    }
    throw new HandoffError(
      'UNREADABLE_INPUT',
      `cannot create ${jsonQuote(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { path },
    );
  }
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

export function generateKey(env: Env, cwd: string, type: KeyType, outDir: string | undefined): Generated {
  const dir = outDir === undefined ? defaultKeyDir(env) : resolve(cwd, outDir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new HandoffError(
      'UNREADABLE_INPUT',
      `cannot create the key folder ${jsonQuote(dir)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { path: dir },
    );
  }
  const { privateKey, publicKey } = pair(type);
  const keyId = keyIdOf(publicKey);
  const stem = `handoff-${type}-${keyId.slice(0, 12)}`;
  const privatePath = join(dir, `${stem}.key`);
  const publicPath = join(dir, `${stem}.pub`);
  writeNew(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 0o600);
  try {
    writeNew(publicPath, publicKey.export({ type: 'spki', format: 'pem' }) as string, 0o644);
  } catch (e) {
    unlinkSync(privatePath);
    throw e;
  }
  return { type, keyId, privatePath, publicPath };
}
