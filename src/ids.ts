/**
 * Identity: minting (CSPRNG, never derived) and the flag checks that run before any file access.
 * Every id the tool mints is minted here by nanoid over the id's documented alphabet and length;
 * the formats are fixed and do not change.
 *
 * The generators are nanoid's `customRandom`, the alphabet-and-length generator its `customAlphabet` is made of,
 * given the kernel's CSPRNG (/dev/urandom) as the byte source instead of WebCrypto: loading node:crypto costs about
 * 10 ms and 220 page faults, more than `contract init` spends on everything else it does (docs/decisions.md, "Fast
 * start"). Where /dev/urandom is not a readable character device (Windows), the bytes come from WebCrypto.
 *
 * Two names minted here are not ids: a temp file's tag and a draft lock's owner token only have to differ from the
 * other writers' at the same moment (the temp name also holds the pid). They come from nanoid's non-secure generator.
 */
import { webcrypto } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { customRandom } from 'nanoid';
import { customAlphabet as uniqueAlphabet } from 'nanoid/non-secure';
import { HandoffError, jsonQuote } from './errors.js';
import { AGENT_ID_RE, DRAFT_ID_RE } from './envelope/patterns.js';

/** The kernel's CSPRNG. */
export const KERNEL_RANDOM = '/dev/urandom';
/** Random bytes are read this many at a time and handed out in order (each byte once). */
const POOL_SIZE = 512;
let pool: Uint8Array | undefined;
let poolOffset = POOL_SIZE;

/**
 * Fills `into` from `device` when it is a character device that gives every byte asked for; else from WebCrypto.
 * Both are cryptographically secure; the device is only the faster one to reach from a fresh process.
 */
export function fillSecureRandom(into: Uint8Array, device = KERNEL_RANDOM): void {
  if (!readDevice(device, into)) webcrypto.getRandomValues(into);
}

function readDevice(device: string, into: Uint8Array): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(device, 'r');
    if (!fstatSync(fd).isCharacterDevice()) return false;
    for (let n = 0; n < into.length;) {
      const got = readSync(fd, into, n, into.length - n, null);
      if (got <= 0) return false;
      n += got;
    }
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `size` secure random bytes, the byte source of every id generator below. */
export function secureRandomBytes(size: number): Uint8Array {
  if (size > POOL_SIZE) {
    const bytes = new Uint8Array(size);
    fillSecureRandom(bytes);
    return bytes;
  }
  if (pool === undefined || poolOffset + size > POOL_SIZE) {
    pool ??= new Uint8Array(POOL_SIZE);
    fillSecureRandom(pool);
    poolOffset = 0;
  }
  poolOffset += size;
  return pool.subarray(poolOffset - size, poolOffset);
}

/** nanoid's generator over `alphabet` and `size`, fed `secureRandomBytes`. */
const secureAlphabet = (alphabet: string, size: number): (() => string) =>
  customRandom(alphabet, size, secureRandomBytes);

const HEX = '0123456789abcdef';
/** The 16 hex digits after `a` (agent ids) and after `R-` (receipt ids). */
const hex16 = secureAlphabet(HEX, 16);
/** The 12-hex draft token after the agent id. */
const hex12 = secureAlphabet(HEX, 12);
/** The 32 hex digits after `P-` (approval ids). */
const hex32 = secureAlphabet(HEX, 32);
/** The 8 hex digits that make a temp file name unique within one process (not an id: see above). */
const tempHex8 = uniqueAlphabet(HEX, 8);
/** A lock owner token's 16 hex digits (not an id: see above). */
const tokenHex16 = uniqueAlphabet(HEX, 16);
/** A v4 UUID's 122 random bits: 30 free hex digits and the variant digit (8, 9, a or b). */
const uuidDigits = secureAlphabet(HEX, 30);
const uuidVariant = secureAlphabet('89ab', 1);

/** `a` + 16 lower-case hex. */
export const mintAgentId = (): string => `a${hex16()}`;
/** The draft token: 12 lower-case hex. */
export const mintToken = (): string => hex12();
export const mintDraftId = (agentId: string): string => `${agentId}.${mintToken()}`;
/** `R-` + 16 lower-case hex. */
export const mintReceiptId = (): string => `R-${hex16()}`;
/** `P-` + 32 lower-case hex. */
export const mintApprovalId = (): string => `P-${hex32()}`;
/** A draft lock's owner token: 16 lower-case hex. */
export const mintLockToken = (): string => tokenHex16();
/** The random part of a temp file name: 8 lower-case hex. */
export const mintTempTag = (): string => tempHex8();

/** A lower-case hyphenated v4 UUID, as `crypto.randomUUID()` prints it (evidence blob names). */
export function mintUuid(): string {
  const d = uuidDigits();
  return `${d.slice(0, 8)}-${d.slice(8, 12)}-4${d.slice(12, 15)}-${uuidVariant()}${d.slice(15, 18)}-${d.slice(18)}`;
}

/** The agent prefix of a draft id: everything before the first `.`. */
export const agentPrefix = (draftId: string): string => draftId.slice(0, draftId.indexOf('.'));

/**
 * Length bounds of the ids: an agent id of at most 115 characters keeps a draft id (agent id,
 * `.`, 12 hex) within 128. Both are checked with the pattern, before any file access.
 */
export const MAX_AGENT_ID_LENGTH = 115;
export const MAX_DRAFT_ID_LENGTH = 128;

export const isDraftId = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= MAX_DRAFT_ID_LENGTH &&
  DRAFT_ID_RE.test(v) &&
  v.indexOf('.') <= MAX_AGENT_ID_LENGTH;
export const isAgentId = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= MAX_AGENT_ID_LENGTH && AGENT_ID_RE.test(v);

/** `--draft-id` (and `--contract-id`, with `flag` naming it) must match the contract-id pattern in full. */
export function checkDraftId(value: string | undefined, flag = '--draft-id'): string | undefined {
  if (value === undefined) return undefined;
  if (!isDraftId(value)) {
    throw new HandoffError(
      'INVALID_DRAFT_ID',
      `${flag} ${jsonQuote(value)} is not a contract id (pattern ^a[0-9a-f]{16,}\\.[0-9a-f]{6,}$, at most ${MAX_DRAFT_ID_LENGTH} characters with an agent part of at most ${MAX_AGENT_ID_LENGTH}); copy the id printed by init or dispatch`,
    );
  }
  return value;
}

export function checkAgentId(value: string | undefined, flag = '--agent-id'): string | undefined {
  if (value === undefined) return undefined;
  if (!isAgentId(value)) {
    throw new HandoffError(
      'INVALID_AGENT_ID',
      `${flag} ${jsonQuote(value)} is not an agent id (pattern ^a[0-9a-f]{16,}$, at most ${MAX_AGENT_ID_LENGTH} characters; an exact id, never a glob)`,
    );
  }
  return value;
}

/** Checks both flags and their agreement (the draft id's prefix must equal the agent id). */
export function checkIdFlags(
  draftId: string | undefined,
  agentId: string | undefined,
): { draftId?: string; agentId?: string } {
  checkDraftId(draftId);
  checkAgentId(agentId);
  if (draftId !== undefined && agentId !== undefined && agentPrefix(draftId) !== agentId) {
    throw new HandoffError(
      'DRAFT_ID_AGENT_MISMATCH',
      `--draft-id ${jsonQuote(draftId)} does not belong to --agent-id ${jsonQuote(agentId)} (its prefix is ${jsonQuote(agentPrefix(draftId))})`,
    );
  }
  return { draftId, agentId };
}
