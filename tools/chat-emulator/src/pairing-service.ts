import type { proto } from '@whiskeysockets/baileys';
import type { Connection } from './connection.js';
import { EmulatorError } from './errors.js';
import { buildPairSuccess, hasDeviceSignature, parsePairingQr } from './fake-phone.js';
import type { PairingQr } from './fake-phone.js';
import { lidForPhone } from './model.js';
import type { LinkedDevice, PairingSchedule } from './model.js';
import type { Network } from './network.js';
import { Registration, registrationTimedOut, restartRequired } from './pairing.js';
import type { Node } from './wire.js';

const PAIR_REPLY_TIMEOUT_MS = 10_000;

/** The device a successful scan linked. */
export interface ScanResult {
  phone: string;
  jid: string;
  lid: string;
  deviceId: number;
}

const deviceFromRegistration = (
  data: proto.ClientPayload.IDevicePairingRegistrationData,
  qr: PairingQr,
  ids: { phone: string; lid: string; deviceId: number },
): LinkedDevice => {
  const hex = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? []).toString('hex');
  return {
    ...ids,
    keyIndex: ids.deviceId,
    noiseKey: qr.noiseKey.toString('hex'),
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

/** Registrations waiting for a scan, and the phone's side of linking a device. */
export class PairingService {
  private readonly byRef = new Map<string, Registration>();
  private readonly byConn = new Map<Connection, Registration>();

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
    const pending = this.byConn.get(conn)?.pending;
    if (pending && node.attrs.id === pending.iqId) pending.resolve(node);
  }

  closed(conn: Connection): void {
    const registration = this.byConn.get(conn);
    if (!registration) return;
    registration.pending?.reject(new EmulatorError(409, 'client_gone', 'the client closed the connection while pairing'));
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
    if (registration.pending) throw new EmulatorError(409, 'pairing_in_progress', 'this QR code is already being scanned');
    return this.link(registration, qr, phone);
  }

  private async link(registration: Registration, qr: PairingQr, phone: string): Promise<ScanResult> {
    const data = registration.conn.hello?.payload.devicePairingData;
    if (!data) throw new EmulatorError(400, 'qr_mismatch', 'connection is not registering');
    const deviceId = this.network.nextDeviceId(phone);
    const lid = lidForPhone(phone);
    const result = { phone, jid: `${phone}:${deviceId}@s.whatsapp.net`, lid: `${lid}:${deviceId}@lid`, deviceId };
    const iqId = `pair-success-${deviceId}-${Date.now()}`;
    const target = { jid: result.jid, lid: result.lid, keyIndex: deviceId, accountKey: this.network.peer(phone).identityKey };
    const reply = await this.awaitSignature(registration, iqId, buildPairSuccess(qr, target, iqId));
    if (!hasDeviceSignature(reply)) throw new EmulatorError(502, 'pairing_rejected', 'the client did not sign the pairing');
    this.unlink(phone);
    this.network.link(deviceFromRegistration(data, qr, { phone, lid, deviceId }));
    this.forget(registration);
    registration.conn.end(restartRequired);
    return result;
  }

  private awaitSignature(registration: Registration, iqId: string, pairSuccess: Node): Promise<Node> {
    return new Promise<Node>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        registration.pending = undefined;
      };
      const timer = setTimeout(() => {
        settle();
        reject(new EmulatorError(504, 'pairing_timeout', 'the client did not confirm the pairing'));
      }, PAIR_REPLY_TIMEOUT_MS);
      registration.pending = {
        iqId,
        resolve: (reply) => (settle(), resolve(reply)),
        reject: (error) => (settle(), reject(error)),
      };
      registration.conn.send(pairSuccess);
    });
  }

  private forget(registration: Registration): void {
    registration.dispose();
    for (const ref of registration.refs) this.byRef.delete(ref);
    this.byConn.delete(registration.conn);
  }
}
