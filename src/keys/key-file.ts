/**
 * Signing keys as files: the private key `HANDOFF_SIGNING_KEY` (or `approval decide --key`) names, and public keys
 * (`attest verify --key`, `HANDOFF_APPROVER_KEYS`). A private key file that group or others may read or write is
 * refused (KEY_UNSAFE): a key others can read proves nothing about who signed.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { HandoffError, jsonQuote } from '../errors.js';
import type { Env } from '../paths.js';

export type KeyType = 'ecdsa-p256' | 'ed25519';

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** sha256 (hex) of the public key's SubjectPublicKeyInfo DER: the DSSE keyid and the bundle's key hint. */
  keyId: string;
  type: KeyType;
  /** Where it was read from (messages only). */
  path: string;
}

export interface PublicKeyEntry {
  publicKey: KeyObject;
  keyId: string;
}

export const keyIdOf = (publicKey: KeyObject): string =>
  createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');

/** The key's algorithm, or undefined for one handoff does not sign with (RSA, other curves). */
export function keyTypeOf(key: KeyObject): KeyType | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ecdsa-p256';
  return undefined;
}

const unreadable = (what: string, path: string, why: string): HandoffError =>
  new HandoffError('UNREADABLE_INPUT', `cannot read ${what} ${jsonQuote(path)}: ${why}`, { path });

export const keyInvalid = (what: string, path: string, why: string): HandoffError =>
  new HandoffError(
    'KEY_INVALID',
    `${what} ${jsonQuote(path)} is not usable: ${why}`,
    { path },
    'Use a PEM key written by `handoff key generate` (ECDSA P-256 or Ed25519).',
  );

/** A path from outside: non-empty, no NUL; relative to `cwd`. */
export function keyPath(raw: string, cwd: string, what: string): string {
  if (raw.trim() === '' || raw.includes('\0')) throw new HandoffError('USAGE', `${what} must name a key file`);
  return resolve(cwd, raw);
}

function readKeyFile(path: string, what: string, privateFile: boolean): Buffer {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw unreadable(what, path, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
  }
  if (!st.isFile()) throw unreadable(what, path, 'not a regular file');
  if (privateFile && process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new HandoffError(
      'KEY_UNSAFE',
      `the private key ${jsonQuote(path)} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}: group or others may read it; nothing was signed or written`,
      { path, mode: (st.mode & 0o777).toString(8).padStart(4, '0') },
      `Run \`chmod 600 ${path}\`, or generate a new key with \`handoff key generate\`.`,
    );
  }
  if (st.size > 64 * 1024) throw keyInvalid(what, path, 'larger than 64 KiB');
  try {
    return readFileSync(path);
  } catch (e) {
    throw unreadable(what, path, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
  }
}

/** Reads and checks a private key file (mode, PEM, algorithm). */
export function loadSigningKey(path: string, what = 'the signing key'): SigningKey {
  const pem = readKeyFile(path, what, true);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw keyInvalid(what, path, 'not a PEM private key');
  }
  const type = keyTypeOf(privateKey);
  if (type === undefined)
    throw keyInvalid(
      what,
      path,
      `a ${privateKey.asymmetricKeyType ?? 'unknown'} key; only ECDSA P-256 and Ed25519 sign`,
    );
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), type, path };
}

/** The store's signing key: `HANDOFF_SIGNING_KEY`, or undefined when it is unset or blank. */
export function storeSigningKey(env: Env, cwd: string): SigningKey | undefined {
  const raw = env.HANDOFF_SIGNING_KEY;
  if (raw === undefined || raw.trim() === '') return undefined;
  return loadSigningKey(keyPath(raw, cwd, 'HANDOFF_SIGNING_KEY'), 'the signing key (HANDOFF_SIGNING_KEY)');
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Every public key of a PEM file (one or more blocks; a private key block yields its public key). */
export function loadPublicKeys(path: string, what: string): PublicKeyEntry[] {
  const text = readKeyFile(path, what, false).toString('utf8');
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw keyInvalid(what, path, 'no PEM block');
  return blocks.map((block) => {
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey({ key: block, format: 'pem' });
    } catch {
      throw keyInvalid(what, path, 'a PEM block is not a public key');
    }
    if (keyTypeOf(publicKey) === undefined) throw keyInvalid(what, path, 'only ECDSA P-256 and Ed25519 keys verify');
    return { publicKey, keyId: keyIdOf(publicKey) };
  });
}
