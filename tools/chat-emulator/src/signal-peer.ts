import {
  Curve,
  DEFAULT_CONNECTION_CONFIG,
  KEY_BUNDLE_TYPE,
  encodeBigEndian,
  encodeWAMessage,
  initAuthCreds,
  proto,
  signedKeyPair,
  unpadRandomMax16,
} from '@whiskeysockets/baileys';
import type { KeyPair, SignalCreds, SignalRepositoryWithLIDStore } from '@whiskeysockets/baileys';
import { MemoryKeyStore } from './key-store.js';
import type { KeyData } from './key-store.js';
import { silentLogger } from './logger.js';
import type { Node } from './wire.js';

/** Keys a Signal session can be started from (what a pre-key bundle carries). */
export interface PreKeyBundle {
  registrationId: number;
  identityKey: Uint8Array;
  signedPreKey: { keyId: number; publicKey: Uint8Array; signature: Uint8Array };
  preKey?: { keyId: number; publicKey: Uint8Array };
}

/** Everything a peer needs to come back after an emulator restart. */
export interface PeerSnapshot {
  pn: string;
  lid: string;
  creds: SignalCreds;
  keys: KeyData;
  nextPreKeyId: number;
}

/**
 * One-time pre-keys handed out but not used yet are forgotten after a while, and there are never
 * more than a cap: a contact many accounts write to at once needs many, an owner's phone (whose
 * copies nobody reads) must not pile them up.
 */
const PRE_KEY_TTL_MS = 10 * 60_000;
const MAX_OUTSTANDING_PRE_KEYS = 4096;

/**
 * A phone on the emulated network (a contact, or an account owner's primary phone, device 0),
 * speaking Signal through Baileys' own repository.
 */
export class SignalPeer {
  readonly keys: MemoryKeyStore;
  private readonly repo: SignalRepositoryWithLIDStore;
  private readonly creds: SignalCreds;
  private nextPreKeyId: number;
  /** Handed-out pre-key ids in issue order, with when they were issued. */
  private readonly issued = new Map<number, number>();

  constructor(
    readonly pn: string,
    readonly lid: string,
    snapshot: PeerSnapshot | undefined,
    private readonly onChange: () => void,
  ) {
    const fresh = initAuthCreds();
    this.creds = snapshot?.creds ?? {
      signedIdentityKey: fresh.signedIdentityKey,
      signedPreKey: signedKeyPair(fresh.signedIdentityKey, 1),
      registrationId: fresh.registrationId,
    };
    this.nextPreKeyId = snapshot?.nextPreKeyId ?? 1;
    this.keys = new MemoryKeyStore(snapshot?.keys ?? {}, onChange);
    this.repo = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: this.creds, keys: this.keys }, silentLogger, async () => []);
  }

  get identityKey(): KeyPair {
    return this.creds.signedIdentityKey;
  }

  snapshot(): PeerSnapshot {
    return { pn: this.pn, lid: this.lid, creds: this.creds, keys: this.keys.data, nextPreKeyId: this.nextPreKeyId };
  }

  /** A pre-key bundle with a FRESH one-time pre-key: libsignal deletes a pre-key once used. */
  bundleNode(jid: string): Node {
    const preKeyId = this.nextPreKeyId++;
    const preKey = Curve.generateKeyPair();
    this.keys.set({ 'pre-key': { [preKeyId]: preKey, ...this.expiredPreKeys() } });
    this.issued.set(preKeyId, Date.now());
    const { registrationId, signedIdentityKey, signedPreKey } = this.creds;
    return {
      tag: 'user',
      attrs: { jid },
      content: [
        { tag: 'registration', attrs: {}, content: encodeBigEndian(registrationId) },
        { tag: 'type', attrs: {}, content: KEY_BUNDLE_TYPE },
        { tag: 'identity', attrs: {}, content: signedIdentityKey.public },
        {
          tag: 'skey',
          attrs: {},
          content: [
            { tag: 'id', attrs: {}, content: encodeBigEndian(signedPreKey.keyId, 3) },
            { tag: 'value', attrs: {}, content: signedPreKey.keyPair.public },
            { tag: 'signature', attrs: {}, content: signedPreKey.signature },
          ],
        },
        {
          tag: 'key',
          attrs: {},
          content: [
            { tag: 'id', attrs: {}, content: encodeBigEndian(preKeyId, 3) },
            { tag: 'value', attrs: {}, content: preKey.public },
          ],
        },
      ],
    };
  }

  /**
   * What a retry receipt carries of this phone: its registration id and, when asked, its keys
   * (`<keys>`: type, identity, a fresh one-time pre-key and the signed pre-key, as in a bundle) for
   * the sender to start a new session from. Baileys `sendRetryRequest`, whatsmeow `sendRetryReceipt`.
   */
  retryNodes(withKeys: boolean): Node[] {
    const bundle = this.bundleNode('').content as Node[];
    const [registration, ...keys] = bundle;
    if (!registration) return [];
    return withKeys ? [registration, { tag: 'keys', attrs: {}, content: keys }] : [registration];
  }

  private expiredPreKeys(): Record<number, null> {
    const expired: Record<number, null> = {};
    const cutoff = Date.now() - PRE_KEY_TTL_MS;
    for (const [id, issuedAt] of this.issued) {
      if (issuedAt > cutoff && this.issued.size < MAX_OUTSTANDING_PRE_KEYS) break;
      expired[id] = null;
      this.issued.delete(id);
    }
    return expired;
  }

  async decrypt(senderJid: string, type: 'pkmsg' | 'msg', ciphertext: Uint8Array): Promise<proto.Message> {
    const padded = await this.repo.decryptMessage({ jid: senderJid, type, ciphertext });
    return proto.Message.decode(unpadRandomMax16(padded));
  }

  async hasSession(jid: string): Promise<boolean> {
    return (await this.repo.validateSession(jid)).exists;
  }

  async startSession(jid: string, bundle: PreKeyBundle): Promise<void> {
    await this.repo.injectE2ESession({ jid, session: bundle });
  }

  async encrypt(jid: string, message: proto.IMessage): Promise<{ type: 'pkmsg' | 'msg'; ciphertext: Uint8Array }> {
    return this.repo.encryptMessage({ jid, data: encodeWAMessage(message) });
  }
}
