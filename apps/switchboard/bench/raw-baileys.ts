import { Agent } from 'node:https';
import makeWASocket, { WA_CERT_DETAILS, initAuthCreds } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, SignalDataTypeMap, SignalKeyStore, WASocket } from '@whiskeysockets/baileys';
import { EmulatorControlClient } from '@switchboard/chat-emulator';
import type { EmulatorProcess } from '../test/support/harness.js';

const silent = { level: 'silent', child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

/** Signal keys in a Map: raw Baileys, nothing of ours. */
function memoryKeys(): SignalKeyStore {
  const data = new Map<string, unknown>();
  return {
    get: async (type, ids) => Object.fromEntries(ids.flatMap((id) => (data.has(`${type}:${id}`) ? [[id, data.get(`${type}:${id}`)]] : []))) as never,
    set: async (values) => {
      for (const [type, entries] of Object.entries(values) as [keyof SignalDataTypeMap, Record<string, unknown>][]) {
        for (const [id, value] of Object.entries(entries ?? {})) {
          if (value == null) data.delete(`${type}:${id}`);
          else data.set(`${type}:${id}`, value);
        }
      }
    },
  };
}

function socket(wsUrl: string, agent: Agent, creds: AuthenticationCreds, keys: SignalKeyStore): WASocket {
  const sock = makeWASocket({
    waWebSocketUrl: wsUrl, auth: { creds, keys }, logger: silent as never, fetchAgent: agent,
    markOnlineOnConnect: false, enableRecentMessageCache: false, shouldSyncHistoryMessage: () => false,
  });
  sock.ev.on('creds.update', (update) => Object.assign(creds, update));
  return sock;
}

function connectionUpdate(sock: WASocket, pick: (u: { connection?: string; qr?: string }) => string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const listener = (u: { connection?: string; qr?: string }) => {
      const value = pick(u);
      if (value === undefined) return;
      sock.ev.off('connection.update', listener);
      resolve(value);
    };
    sock.ev.on('connection.update', listener);
  });
}

/**
 * A real Baileys socket linked to the emulator as `phone`, trusting what the emulator's `/trust`
 * says (as any client in another process must): the baseline the pipeline is measured against.
 */
export async function linkRawBaileys(emulator: EmulatorProcess, phone: string): Promise<WASocket> {
  const trust = await (await fetch(emulator.wsUrl.replace('ws://', 'http://').replace('/ws/chat', '/trust'))).json() as { rootPublicKey: string; mediaCertificatePem: string };
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(trust.rootPublicKey, 'hex') as never;
  const agent = new Agent({ ca: trust.mediaCertificatePem });
  const creds = initAuthCreds();
  const keys = memoryKeys();
  const registering = socket(emulator.wsUrl, agent, creds, keys);
  const qr = await connectionUpdate(registering, (u) => u.qr);
  const closed = connectionUpdate(registering, (u) => (u.connection === 'close' ? 'closed' : undefined));
  await new EmulatorControlClient(emulator.controlUrl).scan(qr, phone);
  await closed;
  const sock = socket(emulator.wsUrl, agent, creds, keys);
  await connectionUpdate(sock, (u) => (u.connection === 'open' ? 'open' : undefined));
  return sock;
}
