import { Curve } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';
import type { StateStore } from './state-store.js';
import { makeSelfSignedCertificate } from './tls-cert.js';
import type { TlsMaterial } from './tls-cert.js';

/** The network's own keys: the test root clients trust, the Noise static key, the media host's TLS pair. */
export interface NetworkIdentity {
  root: KeyPair;
  staticKey: KeyPair;
  tls: TlsMaterial;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const bytes = (text: string): Buffer => Buffer.from(text, 'hex');

const createIdentity = (): NetworkIdentity => ({
  root: Curve.generateKeyPair(),
  staticKey: Curve.generateKeyPair(),
  tls: makeSelfSignedCertificate(),
});

/**
 * Memory-only emulators in one process share one identity: `WA_CERT_DETAILS.PUBLIC_KEY` is a
 * process-wide setting, so several emulators (e.g. in one test file) stay trusted at once.
 */
let processIdentity: NetworkIdentity | undefined;

/** Kept in the data directory when there is one, so clients keep trusting the network across restarts. */
export const loadOrCreateIdentity = (store: StateStore | undefined): NetworkIdentity => {
  if (!store) return (processIdentity ??= createIdentity());
  const saved = store.loadIdentity();
  if (saved) {
    return {
      root: { private: bytes(saved.rootPrivate), public: bytes(saved.rootPublic) },
      staticKey: { private: bytes(saved.staticPrivate), public: bytes(saved.staticPublic) },
      tls: { keyPem: saved.mediaKeyPem, certPem: saved.mediaCertPem },
    };
  }
  const identity = createIdentity();
  store.saveIdentity({
    rootPrivate: hex(identity.root.private),
    rootPublic: hex(identity.root.public),
    staticPrivate: hex(identity.staticKey.private),
    staticPublic: hex(identity.staticKey.public),
    mediaKeyPem: identity.tls.keyPem,
    mediaCertPem: identity.tls.certPem,
  });
  return identity;
};
