import { Curve, WA_CERT_DETAILS, proto } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';

const INTERMEDIATE_SERIAL = 1;
const LEAF_SERIAL = 2;

/**
 * The Noise certificate chain the server presents: a test root signs an intermediate, the
 * intermediate signs a leaf holding the server's static key. Baileys checks the intermediate
 * against `WA_CERT_DETAILS.PUBLIC_KEY` and its issuer serial against `WA_CERT_DETAILS.SERIAL`.
 * Signed properly: Switchboard's driver checks the signatures (Baileys 7.0.0-rc14's own
 * `Curve.verify` accepts any well-sized signature).
 */
export const makeCertChain = (root: KeyPair, serverStaticPublic: Uint8Array): Uint8Array => {
  const intermediate = Curve.generateKeyPair();
  const Details = proto.CertChain.NoiseCertificate.Details;
  const intermediateDetails = Details.encode({
    serial: INTERMEDIATE_SERIAL,
    issuerSerial: WA_CERT_DETAILS.SERIAL,
    key: intermediate.public,
  }).finish();
  const leafDetails = Details.encode({
    serial: LEAF_SERIAL,
    issuerSerial: INTERMEDIATE_SERIAL,
    key: serverStaticPublic,
  }).finish();
  return proto.CertChain.encode({
    intermediate: { details: intermediateDetails, signature: Curve.sign(root.private, intermediateDetails) },
    leaf: { details: leafDetails, signature: Curve.sign(intermediate.private, leafDetails) },
  }).finish();
};
