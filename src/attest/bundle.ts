/**
 * The Sigstore side of export and verify, loaded only by the attest verbs: `@sigstore/sign` assembles each bundle
 * (v0.3, DSSE, public-key hint, no transparency log), `@sigstore/bundle` writes and reads its JSON, `@sigstore/verify`
 * checks a signature against trust material built from the given public keys (offline: every threshold 0). The
 * packages are required at run time from node_modules, never bundled into the CLI.
 */
import { sign as nodeSign, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type { SigningKey } from '../keys/key-file.js';
import { IN_TOTO_PAYLOAD_TYPE } from './dsse.js';

type SignMod = typeof import('@sigstore/sign');
type BundleMod = typeof import('@sigstore/bundle');
type VerifyMod = typeof import('@sigstore/verify');

let mods: { sign: SignMod; bundle: BundleMod; verify: VerifyMod } | undefined;

export function sigstore(): { sign: SignMod; bundle: BundleMod; verify: VerifyMod } {
  if (mods === undefined) {
    const require = createRequire(import.meta.url);
    mods = {
      sign: require('@sigstore/sign') as SignMod,
      bundle: require('@sigstore/bundle') as BundleMod,
      verify: require('@sigstore/verify') as VerifyMod,
    };
  }
  return mods;
}

/**
 * Outside the signed payload: whether the line was signed when it was written, or by the export itself. A copy for
 * readers of the file; the signed head statement lists the same label for every line, and verify reports only that.
 */
export const SIGNED_MARK = 'handoffSigned';
export type SignedWhen = 'at-write' | 'at-export';
export const SIGNED_WHEN: readonly string[] = ['at-write', 'at-export'];

export type BundleJson = Record<string, unknown>;

/** One line: the bundle's JSON as @sigstore/bundle writes it, then the mark. */
export const lineText = (bundle: BundleJson, when: string): string =>
  JSON.stringify({ ...bundle, [SIGNED_MARK]: when });

/** A bundle over `payload` carrying an existing DSSE signature (base64) by the key `keyId`. */
export async function bundleOfSigned(payload: Buffer, signature: string, keyId: string): Promise<BundleJson> {
  return build(payload, keyId, () => Buffer.from(signature, 'base64'));
}

/** A bundle over `payload`, signed now by `key` (DSSE: @sigstore/sign hands over the pre-authentication encoding). */
export async function bundleSignedNow(payload: Buffer, key: SigningKey): Promise<BundleJson> {
  return build(payload, key.keyId, (pae) => nodeSign(key.type === 'ed25519' ? null : 'sha256', pae, key.privateKey));
}

async function build(payload: Buffer, keyId: string, signature: (pae: Buffer) => Buffer): Promise<BundleJson> {
  const { sign, bundle } = sigstore();
  const builder = new sign.DSSEBundleBuilder({
    signer: {
      sign: (pae: Buffer) =>
        Promise.resolve({
          signature: signature(pae),
          key: { $case: 'publicKey' as const, publicKey: '', hint: keyId },
        }),
    },
    witnesses: [],
  });
  const b = await builder.create({ data: payload, type: IN_TOTO_PAYLOAD_TYPE });
  return bundle.bundleToJSON(b);
}

/** An offline verifier whose trust material is exactly `keys` (key id -> public key). */
export function offlineVerifier(keys: ReadonlyMap<string, KeyObject>): InstanceType<VerifyMod['Verifier']> {
  const { verify } = sigstore();
  const trust = verify.toTrustMaterial(
    { mediaType: '', certificateAuthorities: [], tlogs: [], ctlogs: [], timestampAuthorities: [] },
    (hint: string) => {
      const publicKey = keys.get(hint);
      if (publicKey === undefined) throw new Error(`no trusted key ${hint}`);
      return { publicKey, validFor: () => true };
    },
  );
  return new verify.Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, tsaThreshold: 0 });
}
