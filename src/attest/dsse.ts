/**
 * DSSE (Dead Simple Signing Envelope) over node:crypto: the signature is over the pre-authentication encoding
 * `DSSEv1 <len(type)> <type> <len(body)> <body>`. ECDSA P-256 signs its SHA-256 (DER signature), Ed25519 the bytes
 * themselves. Cheap enough for the write path: no Sigstore module is loaded here.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import type { SigningKey } from '../keys/key-file.js';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export function pae(payloadType: string, payload: Buffer): Buffer {
  const head = `DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `;
  return Buffer.concat([Buffer.from(head, 'utf8'), payload]);
}

const digestFor = (key: KeyObject): string | null => (key.asymmetricKeyType === 'ed25519' ? null : 'sha256');

/** The signature (base64) of `payload` as a DSSE in-toto envelope. */
export function signPayload(key: SigningKey, payload: Buffer): string {
  return sign(digestFor(key.privateKey), pae(IN_TOTO_PAYLOAD_TYPE, payload), key.privateKey).toString('base64');
}

/** Whether `sig` (raw bytes) is a valid DSSE signature of `payload` by `publicKey`; never throws. */
export function verifyPayload(
  publicKey: KeyObject,
  payload: Buffer,
  sig: Buffer,
  payloadType = IN_TOTO_PAYLOAD_TYPE,
): boolean {
  try {
    return verify(digestFor(publicKey), pae(payloadType, payload), publicKey, sig);
  } catch {
    return false;
  }
}
