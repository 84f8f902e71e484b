import { randomBytes } from 'node:crypto';
import { Curve } from '@whiskeysockets/baileys';
import type { proto } from '@whiskeysockets/baileys';
import type { Connection } from './connection.js';
import { EmulatorError } from './errors.js';
import { buildLinkCodeNotification, buildPairSuccess, hasDeviceSignature, parsePairingQr } from './fake-phone.js';
import type { CompanionKeys } from './fake-phone.js';
import { linkCodeAdvSecret, normalizeLinkCode, openKeyBundle, unwrapEphemeral, wrapEphemeral } from './link-code.js';
import { isPhone, lidForPhone } from './model.js';
import type { LinkedDevice, PairingSchedule } from './model.js';
import type { Network } from './network.js';
import { Registration, registrationTimedOut, restartRequired } from './pairing.js';
import type { AwaitedStanza, LinkCodeRequest } from './pairing.js';
import { SERVER_JID, bytesOf, child, iqResult, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

const PAIR_REPLY_TIMEOUT_MS = 10_000;

const clientGone = (): EmulatorError => new EmulatorError(409, 'client_gone', 'the client closed the connection while pairing');

/** The `link_code_companion_reg` stanza the companion answers the code with, if `node` is one. */
const companionFinish = (node: Node): Node | undefined => {
  const reg = child(node, 'link_code_companion_reg');
  return node.tag === 'iq' && reg?.attrs.stage === 'companion_finish' ? reg : undefined;
};

const iqError = (request: Node, code: number, text: string): Node => ({
  tag: 'iq',
  attrs: { from: SERVER_JID, id: request.attrs.id ?? '', type: 'error', t: nowSeconds() },
  content: [{ tag: 'error', attrs: { code: String(code), text } }],
});

/** The device a successful scan linked. */
export interface ScanResult {
  phone: string;
  jid: string;
  lid: string;
  deviceId: number;
}

const deviceFromRegistration = (
  data: proto.ClientPayload.IDevicePairingRegistrationData,
  companion: CompanionKeys,
  ids: { phone: string; lid: string; deviceId: number },
): LinkedDevice => {
  const hex = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? []).toString('hex');
  return {
    ...ids,
    keyIndex: ids.deviceId,
    noiseKey: companion.noiseKey.toString('hex'),
    registrationId: Buffer.from(data.eRegid ?? []).readUInt32BE(0),
    identityKey: hex(data.eIdent),
    signedPreKey: {
      keyId: Buffer.from(data.eSkeyId ?? []).readUIntBE(0, 3),
      publicKey: hex(data.eSkeyVal),
      signature: hex(data.eSkeySig),
    },
    preKeys: [],
    preKeyCount: 0,
    linkedAt: new Date().toISOString(),
  };
};

/** Registrations waiting for a scan or a code, and the phone's side of linking a device. */
export class PairingService {
  private readonly byRef = new Map<string, Registration>();
  private readonly byConn = new Map<Connection, Registration>();
  /** Registrations that asked to link by code, by the number they named (the latest one wins). */
  private readonly byCodePhone = new Map<string, Registration>();
  /** Registrations whose phone is entering a code now (its key derivations run before anything is sent). */
  private readonly entering = new Set<Registration>();

  constructor(
    private readonly network: Network,
    private readonly schedule: PairingSchedule,
    private readonly unlink: (phone: string) => void,
  ) {}

  /** A client without credentials connected: issue its QR refs. */
  register(conn: Connection): void {
    const registration = new Registration(conn, this.schedule, (r) => {
      this.forget(r);
      r.conn.end(registrationTimedOut);
    });
    for (const ref of registration.refs) this.byRef.set(ref, registration);
    this.byConn.set(conn, registration);
    conn.send(registration.pairDeviceNode());
  }

  /** An `iq type=result` from an unpaired client: maybe the `pair-device-sign` we wait for. */
  result(conn: Connection, node: Node): void {
    const awaiting = this.byConn.get(conn)?.awaiting;
    if (awaiting?.matches(node)) awaiting.resolve(node);
  }

  /**
   * `link_code_companion_reg` from an unpaired client: `companion_hello` asks to link to a number
   * by code (answered with the registration's ref, as the network does), `companion_finish`
   * carries its key bundle back after the phone sent the code's `primary_hello`.
   */
  companionReg(conn: Connection, iq: Node): void {
    const registration = this.byConn.get(conn);
    const reg = child(iq, 'link_code_companion_reg');
    if (!registration || !reg) return conn.send(iqError(iq, 400, 'bad-request'));
    if (reg.attrs.stage === 'companion_hello') return conn.send(this.codeRequested(registration, iq, reg));
    conn.send(iqResult(iq));
    if (registration.awaiting?.matches(iq)) registration.awaiting.resolve(iq);
  }

  closed(conn: Connection): void {
    const registration = this.byConn.get(conn);
    if (!registration) return;
    registration.awaiting?.reject(clientGone());
    this.forget(registration);
  }

  async scan(qrText: string, phone: string): Promise<ScanResult> {
    const qr = parsePairingQr(qrText);
    if (!qr) throw new EmulatorError(400, 'qr_unreadable', 'not a WhatsApp pairing code');
    const registration = this.byRef.get(qr.ref);
    if (!registration) throw new EmulatorError(404, 'qr_unknown', 'no client is showing this QR code');
    if (registration.refState(qr.ref) !== 'valid') throw new EmulatorError(410, 'qr_expired', 'this QR code has expired');
    if (!registration.conn.hello?.clientStatic.equals(qr.noiseKey)) {
      throw new EmulatorError(400, 'qr_mismatch', 'QR code does not match the connection');
    }
    if (registration.awaiting || this.entering.has(registration)) throw new EmulatorError(409, 'pairing_in_progress', 'this device is already being linked');
    return this.link(registration, qr, phone);
  }

  /**
   * The phone of `phone` enters the code its companion shows. The phone cannot tell a wrong code
   * by itself: it wraps its key with what was typed, and the companion's answer does not open
   * (422 `code_incorrect`; the companion keeps waiting and the right code still links it).
   */
  async enterCode(phone: string, typed: string): Promise<ScanResult> {
    const code = normalizeLinkCode(typed);
    if (!code) throw new EmulatorError(400, 'invalid_request', 'code must be the 8 characters the device shows, e.g. ABCD-EFGH');
    const registration = this.byCodePhone.get(phone);
    const request = registration?.linkCode;
    if (!registration || !request) throw new EmulatorError(404, 'no_code_request', `no device is waiting to link to ${phone} by code`);
    if (registration.awaiting || this.entering.has(registration)) {
      throw new EmulatorError(409, 'pairing_in_progress', 'a code is already being entered for this device');
    }
    this.entering.add(registration);
    try {
      return await this.linkByCode(registration, request, code);
    } finally {
      this.entering.delete(registration);
    }
  }

  /** The code's exchange (`primary_hello`, `companion_finish`), then the link as after a scan. */
  private async linkByCode(registration: Registration, request: LinkCodeRequest, code: string): Promise<ScanResult> {
    const { phone } = request;
    const account = this.network.peer(phone).identityKey;
    const ephemeral = Curve.generateKeyPair();
    const companionEphemeral = await unwrapEphemeral(code, request.wrappedEphemeral);
    const notification = buildLinkCodeNotification(request.ref, await wrapEphemeral(code, ephemeral.public), account.public, randomBytes(8).toString('hex'));
    if (this.byConn.get(registration.conn) !== registration) throw clientGone();
    const finish = companionFinish(await this.exchange(registration, (node) => companionFinish(node) !== undefined, notification));
    const shared = Curve.sharedKey(ephemeral.private, companionEphemeral);
    const bundle = openKeyBundle(shared, bytesOf(child(finish, 'link_code_pairing_wrapped_key_bundle')) ?? Buffer.alloc(0));
    const identity = bytesOf(child(finish, 'companion_identity_public'));
    if (!bundle || !identity?.equals(bundle.companionIdentity) || !bundle.primaryIdentity.equals(account.public)) {
      throw new EmulatorError(422, 'code_incorrect', 'the code does not match the one the device shows');
    }
    const noiseKey = registration.conn.hello?.clientStatic ?? Buffer.alloc(0);
    return this.link(registration, { noiseKey, identityKey: bundle.companionIdentity, advSecret: linkCodeAdvSecret(shared, account, bundle) }, phone);
  }

  /** `companion_hello`: remembers the request under its number and answers the registration's ref. */
  private codeRequested(registration: Registration, iq: Node, reg: Node): Node {
    const phone = (reg.attrs.jid ?? '').replace(/@s\.whatsapp\.net$/, '');
    const wrappedEphemeral = bytesOf(child(reg, 'link_code_pairing_wrapped_companion_ephemeral_pub'));
    if (!isPhone(phone) || !wrappedEphemeral) return iqError(iq, 400, 'bad-request');
    const ref = registration.refs[0] ?? '';
    registration.linkCode = { phone, wrappedEphemeral, ref };
    this.byCodePhone.set(phone, registration);
    const refNode = { tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(ref) };
    return iqResult(iq, [{ tag: 'link_code_companion_reg', attrs: {}, content: [refNode] }]);
  }

  private async link(registration: Registration, companion: CompanionKeys, phone: string): Promise<ScanResult> {
    const data = registration.conn.hello?.payload.devicePairingData;
    if (!data) throw new EmulatorError(400, 'qr_mismatch', 'connection is not registering');
    if (this.byConn.get(registration.conn) !== registration) throw clientGone();
    const deviceId = this.network.nextDeviceId(phone);
    const lid = lidForPhone(phone);
    const result = { phone, jid: `${phone}:${deviceId}@s.whatsapp.net`, lid: `${lid}:${deviceId}@lid`, deviceId };
    const iqId = `pair-success-${deviceId}-${Date.now()}`;
    const target = { jid: result.jid, lid: result.lid, keyIndex: deviceId, accountKey: this.network.peer(phone).identityKey };
    const reply = await this.exchange(registration, (node) => node.attrs.id === iqId, buildPairSuccess(companion, target, iqId));
    if (!hasDeviceSignature(reply)) throw new EmulatorError(502, 'pairing_rejected', 'the client did not sign the pairing');
    this.unlink(phone);
    this.network.link(deviceFromRegistration(data, companion, { phone, lid, deviceId }));
    this.forget(registration);
    registration.conn.end(restartRequired);
    return result;
  }

  /** Sends `stanza` to the registering client and waits (bounded) for its answer, the one `matches` picks. */
  private exchange(registration: Registration, matches: (node: Node) => boolean, stanza: Node): Promise<Node> {
    return new Promise<Node>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        registration.awaiting = undefined;
      };
      const timer = setTimeout(() => {
        settle();
        reject(new EmulatorError(504, 'pairing_timeout', 'the client did not confirm the pairing'));
      }, PAIR_REPLY_TIMEOUT_MS);
      const awaiting: AwaitedStanza = {
        matches,
        resolve: (reply) => (settle(), resolve(reply)),
        reject: (error) => (settle(), reject(error)),
      };
      registration.awaiting = awaiting;
      registration.conn.send(stanza);
    });
  }

  private forget(registration: Registration): void {
    registration.dispose();
    for (const ref of registration.refs) this.byRef.delete(ref);
    this.byConn.delete(registration.conn);
    const phone = registration.linkCode?.phone;
    if (phone && this.byCodePhone.get(phone) === registration) this.byCodePhone.delete(phone);
  }
}
