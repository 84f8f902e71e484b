import { Curve } from '@whiskeysockets/baileys';
import { BoundedMap } from '../bounded-map.js';
import { verifyCurve25519Signature } from './xeddsa-verify.js';

type Verify = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;

/** Signatures remembered as valid; the server's certificate chain needs two. */
const REMEMBERED = 64;

/**
 * `verify` with its valid verdicts remembered (the last `capacity` distinct inputs). A memo of a
 * pure function: the same key, message and signature bytes always get the same verdict. Only
 * `true` is kept, so a signature that failed is checked again every time and never passes from here.
 */
export function rememberValidSignatures(verify: Verify, capacity = REMEMBERED): Verify {
  const valid = new BoundedMap<string, true>(capacity);
  return (publicKey, message, signature) => {
    // The exact bytes, not a digest: no two inputs can share an entry.
    const key = [publicKey, message, signature].map((bytes) => Buffer.from(bytes).toString('base64')).join('.');
    if (valid.get(key)) return true;
    const verdict = verify(publicKey, message, signature);
    if (verdict === true) valid.set(key, true);
    return verdict;
  };
}

let installed = false;

/**
 * Baileys 7.0.0-rc14's `Curve.verify` (lib/Utils/crypto.js) treats any well-sized signature as
 * valid: libsignal's `verifySignature` returns its verdict and Baileys only catches a throw. So the
 * server's certificate chain in each Noise handshake (lib/Utils/noise-handler.js) and the account
 * signature at pairing (lib/Utils/validate-connection.js) went unchecked, at ~5 ms of pure-JS
 * curve25519 each: half the CPU of a reconnect (issue 17). whatsmeow checks both (handshake.go,
 * pair.go). Baileys has no setting for it; its modules call `Curve.verify` through the exported
 * `Curve` object, so replacing that property reaches them all (this relies on that). The
 * replacement checks natively and remembers valid signatures: the chain, the same on every
 * handshake, is verified once per process. Idempotent; process-wide.
 */
export function installWorkingCurveVerify(): void {
  if (installed) return;
  installed = true;
  Curve.verify = rememberValidSignatures(verifyCurve25519Signature);
}
