import { Curve, NOISE_MODE, NOISE_WA_HEADER, aesDecryptGCM, aesEncryptGCM, hkdf, proto, sha256 } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';

const EMPTY = Buffer.alloc(0);

const ivFor = (counter: number): Buffer => {
  const iv = Buffer.alloc(12);
  iv.writeUInt32BE(counter, 8);
  return iv;
};

/** What the client said about itself in the last handshake message. */
export interface ClientHello {
  clientStatic: Buffer;
  payload: proto.ClientPayload;
}

/**
 * Server side of WhatsApp's Noise_XX_25519_AESGCM_SHA256 handshake: the mirror of Baileys'
 * `makeNoiseHandler`, with the transport keys swapped (the client's write key is our read key).
 */
export class ServerNoise {
  private hash: Buffer = Buffer.from(NOISE_MODE);
  private salt: Buffer = this.hash;
  private key: Buffer = this.hash;
  private counter = 0;
  private ephemeral: KeyPair | undefined;
  private transport: { enc: Buffer; dec: Buffer; read: number; write: number } | undefined;

  constructor(
    private readonly staticKey: KeyPair,
    private readonly certChain: Uint8Array,
  ) {
    this.authenticate(NOISE_WA_HEADER);
  }

  /** Answers the client hello: our ephemeral key, our encrypted static key and certificate chain. */
  serverHello(clientEphemeral: Uint8Array): Uint8Array {
    this.authenticate(clientEphemeral);
    this.ephemeral = Curve.generateKeyPair();
    this.authenticate(this.ephemeral.public);
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, clientEphemeral));
    const encryptedStatic = this.encrypt(this.staticKey.public);
    this.mixIntoKey(Curve.sharedKey(this.staticKey.private, clientEphemeral));
    const payload = this.encrypt(this.certChain);
    return proto.HandshakeMessage.encode({
      serverHello: { ephemeral: this.ephemeral.public, static: encryptedStatic, payload },
    }).finish();
  }

  /** Reads the client finish (its static key and login or registration payload) and opens the transport. */
  clientFinish(finish: proto.HandshakeMessage.IClientFinish): ClientHello {
    if (!this.ephemeral || !finish.static || !finish.payload) throw new Error('unexpected client finish');
    const clientStatic = this.decrypt(finish.static);
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, clientStatic));
    const payload = proto.ClientPayload.decode(this.decrypt(finish.payload));
    const keys = hkdf(EMPTY, 64, { salt: this.salt, info: '' });
    this.transport = { enc: Buffer.from(keys.subarray(32)), dec: Buffer.from(keys.subarray(0, 32)), read: 0, write: 0 };
    return { clientStatic, payload };
  }

  encryptFrame(plaintext: Uint8Array): Buffer {
    if (!this.transport) throw new Error('noise transport not ready');
    return aesEncryptGCM(plaintext, this.transport.enc, ivFor(this.transport.write++), EMPTY);
  }

  decryptFrame(ciphertext: Uint8Array): Buffer {
    if (!this.transport) throw new Error('noise transport not ready');
    return aesDecryptGCM(ciphertext, this.transport.dec, ivFor(this.transport.read++), EMPTY);
  }

  private authenticate(data: Uint8Array): void {
    this.hash = sha256(Buffer.concat([this.hash, data]));
  }

  private mixIntoKey(data: Uint8Array): void {
    const derived = hkdf(Buffer.from(data), 64, { salt: this.salt, info: '' });
    this.salt = Buffer.from(derived.subarray(0, 32));
    this.key = Buffer.from(derived.subarray(32));
    this.counter = 0;
  }

  private encrypt(plaintext: Uint8Array): Buffer {
    const ciphertext = aesEncryptGCM(plaintext, this.key, ivFor(this.counter++), this.hash);
    this.authenticate(ciphertext);
    return ciphertext;
  }

  private decrypt(ciphertext: Uint8Array): Buffer {
    const plaintext = aesDecryptGCM(ciphertext, this.key, ivFor(this.counter++), this.hash);
    this.authenticate(ciphertext);
    return plaintext;
  }
}
