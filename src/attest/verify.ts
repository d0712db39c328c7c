/**
 * `attest verify`: an export checked offline, line by line, then as a whole. Per line: the exact form export writes
 * (ATTEST_FORMAT), the signature by a given key (ATTEST_SIGNATURE, through @sigstore/verify), the statement's subject
 * digests recomputed from its payload and the cited blobs when given (ATTEST_DIGEST, ATTEST_BLOB_MISSING), the
 * approver policy. Then the whole (verify-whole.ts): the handoff statements walked from genesis with one successor at
 * each step and the head statement last, whose chain, tip, counts and ordered lines (each line's digest and how it was
 * signed) must match (ATTEST_CHAIN); with `chain`/`tip` given, the file must be of that chain, up to that tip. How a
 * line was signed is reported from the verified head only: the `handoffSigned` mark beside each bundle must agree.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { HandoffError } from '../errors.js';
import { keyPath, loadPublicKeys } from '../keys/key-file.js';
import type { Env } from '../paths.js';
import { canonicalJson } from '../receipts/jcs.js';
import { approverKeys } from './approver.js';
import { lineText, offlineVerifier, sigstore, SIGNED_MARK, SIGNED_WHEN } from './bundle.js';
import { IN_TOTO_PAYLOAD_TYPE } from './dsse.js';
import { blobFinding } from './verify-blobs.js';
import {
  APPROVAL_PREDICATE,
  HANDOFF_PREDICATE,
  HEAD_PREDICATE,
  RECEIPT_PREDICATE,
  sha256Hex,
  STATEMENT_TYPE,
  type HeadCounts,
} from './statement.js';
import { subjectFinding } from './verify-subjects.js';
import {
  checkApprovers,
  checkExpected,
  checkWhole,
  isObject,
  LineFailure,
  type LineKind,
  type Parsed,
  type SignedLine,
} from './verify-whole.js';

export interface VerifyRequest {
  file: string;
  keys: string[];
  blobs?: string;
  /** The file must be of the chain this contract belongs to (its root, or a contract whose handoff it holds). */
  chain?: string;
  /** The file's verified tip must be this payload digest. */
  tip?: string;
}

export type VerifyOutcome =
  | {
      ok: true;
      lines: number;
      counts: HeadCounts;
      chain: string;
      tip: string;
      statements: SignedLine[];
      blobsChecked: number;
    }
  | { ok: false; code: string; line: number; message: string };

const BUNDLE_V03 = 'application/vnd.dev.sigstore.bundle.v0.3+json';
const KINDS: Record<string, LineKind> = {
  [HANDOFF_PREDICATE]: 'handoff',
  [RECEIPT_PREDICATE]: 'receipt',
  [APPROVAL_PREDICATE]: 'approval',
  [HEAD_PREDICATE]: 'head',
};

interface Trust {
  store: Map<string, KeyObject>;
  approvers: Map<string, KeyObject> | undefined;
  all: Map<string, KeyObject>;
}

function readInput(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new HandoffError(
      'UNREADABLE_INPUT',
      `cannot read ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { path },
    );
  }
}

function trustOf(env: Env, cwd: string, keys: readonly string[]): Trust {
  const store = new Map<string, KeyObject>();
  for (const k of keys)
    for (const e of loadPublicKeys(keyPath(k, cwd, '--key'), 'the public key (--key)')) store.set(e.keyId, e.publicKey);
  const list = approverKeys(env, cwd);
  const approvers = list === undefined ? undefined : new Map(list.map((e) => [e.keyId, e.publicKey]));
  return { store, approvers, all: new Map([...store, ...(approvers ?? [])]) };
}

/** One line checked on its own; throws LineFailure. */
function checkLine(
  text: string,
  n: number,
  trust: Trust,
  verifiers: Map<string, ReturnType<typeof offlineVerifier>>,
  blobs: string | undefined,
  counter: { blobs: number },
): Parsed {
  const fail = (code: string, message: string): never => {
    throw new LineFailure(code, n, message);
  };
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    fail('ATTEST_FORMAT', 'not a JSON value');
  }
  if (!isObject(obj) || obj.mediaType !== BUNDLE_V03)
    fail('ATTEST_FORMAT', `not a Sigstore bundle of media type ${BUNDLE_V03}`);
  const o = obj as Record<string, unknown>;
  const when = o[SIGNED_MARK];
  if (typeof when !== 'string' || !SIGNED_WHEN.includes(when))
    fail('ATTEST_FORMAT', `"${SIGNED_MARK}" is not one of ${SIGNED_WHEN.join(', ')}`);
  const { bundle: b, verify: v } = sigstore();
  let bundle: ReturnType<typeof b.bundleFromJSON>;
  try {
    bundle = b.bundleFromJSON(o);
  } catch (e) {
    return fail('ATTEST_FORMAT', `not a valid bundle: ${(e as Error).message}`);
  }
  // The exact text export writes: a byte changed anywhere outside the signed payload shows here.
  if (lineText(b.bundleToJSON(bundle), when as string) !== text)
    fail('ATTEST_FORMAT', 'not in the exact form attest export writes');
  if (bundle.content.$case !== 'dsseEnvelope') return fail('ATTEST_FORMAT', 'not a DSSE bundle');
  const env = bundle.content.dsseEnvelope;
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) fail('ATTEST_FORMAT', `payloadType is not ${IN_TOTO_PAYLOAD_TYPE}`);
  if (env.signatures.length !== 1) fail('ATTEST_FORMAT', 'not exactly one signature');
  const vm = bundle.verificationMaterial.content;
  const hint = vm.$case === 'publicKey' ? vm.publicKey.hint : undefined;
  if (hint === undefined || hint !== env.signatures[0].keyid)
    fail('ATTEST_SIGNATURE', 'the key hint and the signature key id differ');
  if (!trust.all.has(hint!)) fail('ATTEST_SIGNATURE', `signed by key ${hint}, which no --key (or approver key) is`);
  let verifier = verifiers.get(hint!);
  if (verifier === undefined)
    verifiers.set(hint!, (verifier = offlineVerifier(new Map([[hint!, trust.all.get(hint!)!]]))));
  try {
    verifier.verify(v.toSignedEntity(bundle));
  } catch (e) {
    fail('ATTEST_SIGNATURE', `the signature does not verify with key ${hint}: ${(e as Error).message}`);
  }
  // The signed payload: a canonical in-toto statement of a known predicate.
  const payload = env.payload.toString('utf8');
  let st: unknown;
  try {
    st = JSON.parse(payload);
  } catch {
    fail('ATTEST_FORMAT', 'the signed payload is not JSON');
  }
  if (
    !isObject(st) ||
    st._type !== STATEMENT_TYPE ||
    !Array.isArray(st.subject) ||
    !isObject(st.predicate) ||
    typeof st.predicateType !== 'string'
  ) {
    return fail('ATTEST_FORMAT', 'the signed payload is not an in-toto Statement v1');
  }
  if (canonicalJson(st) !== payload) fail('ATTEST_FORMAT', 'the signed payload is not in RFC 8785 canonical form');
  const kind = KINDS[st.predicateType];
  if (kind === undefined) fail('ATTEST_FORMAT', `unknown predicateType ${JSON.stringify(st.predicateType)}`);
  const storeSigned = trust.store.has(hint!);
  if (!storeSigned && kind !== 'approval')
    fail('ATTEST_SIGNATURE', `a ${kind} statement signed by approver key ${hint}, not by a --key`);
  const subjectProblem = subjectFinding(kind, st.subject as unknown[], st.predicate);
  if (subjectProblem !== undefined) fail('ATTEST_DIGEST', subjectProblem);
  if (kind === 'handoff' && blobs !== undefined) {
    const found = blobFinding(blobs, (st.subject as { name: string; digest: { sha256: string } }[]).slice(1));
    counter.blobs += found.checked;
    if (found.problem !== undefined) fail(found.problem.code, found.problem.message);
  }
  return {
    line: n,
    kind: kind,
    digest: sha256Hex(env.payload),
    mark: when as string,
    subject: String((st.subject as { name?: unknown }[])[0]?.name),
    predicate: st.predicate,
    byApprover: trust.approvers?.has(hint!) ?? false,
  };
}

export function verifyExport(env: Env, cwd: string, req: VerifyRequest): VerifyOutcome {
  const trust = trustOf(env, cwd, req.keys);
  const bytes = readInput(resolve(cwd, req.file));
  const blobs = req.blobs === undefined ? undefined : resolve(cwd, req.blobs);
  try {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      const at = firstBadUtf8Line(bytes);
      throw new LineFailure('ATTEST_FORMAT', at, 'not valid UTF-8');
    }
    const rows = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
    if (text === '') throw new LineFailure('ATTEST_CHAIN', 1, 'the file is empty: no head statement');
    const verifiers = new Map<string, ReturnType<typeof offlineVerifier>>();
    const counter = { blobs: 0 };
    const parsed = rows.map((row, i) => checkLine(row, i + 1, trust, verifiers, blobs, counter));
    if (!text.endsWith('\n'))
      throw new LineFailure('ATTEST_FORMAT', rows.length, 'the last line has no newline: the file is truncated');
    const whole = checkWhole(parsed, rows.length);
    checkExpected(req, parsed, whole);
    if (trust.approvers !== undefined) checkApprovers(parsed);
    return { ok: true, lines: rows.length, ...whole, blobsChecked: counter.blobs };
  } catch (e) {
    if (e instanceof LineFailure) return { ok: false, code: e.code, line: e.line, message: e.message };
    throw e;
  }
}

function firstBadUtf8Line(bytes: Buffer): number {
  let start = 0;
  let line = 1;
  const dec = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        dec.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      start = i + 1;
      line++;
    }
  }
  return 1;
}
