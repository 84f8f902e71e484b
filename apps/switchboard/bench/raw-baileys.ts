import { Agent } from 'node:https';
import makeWASocket, { WA_CERT_DETAILS, generateMessageIDV2, initAuthCreds } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, BinaryNode, SignalDataTypeMap, SignalKeyStore, WASocket } from '@whiskeysockets/baileys';
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

/**
 * `sendMessage` that resolves on the network's `<ack class="message" id=…>` instead of when the
 * frame is written: what Switchboard's driver waits for (its AckWaiter), so this is the fair
 * floor under a pipeline send. The waiter is registered before the write, as the driver does.
 */
export function sendUntilAcked(sock: WASocket): (jid: string, text: string) => Promise<void> {
  const waiting = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  sock.ws.on('CB:ack,class:message', (node: BinaryNode) => {
    const waiter = node.attrs.id === undefined ? undefined : waiting.get(node.attrs.id);
    if (!waiter) return;
    waiting.delete(node.attrs.id!);
    if (node.attrs.error) waiter.reject(new Error(`the emulator refused ${node.attrs.id} (${node.attrs.error})`));
    else waiter.resolve();
  });
  return async (jid, text) => {
    const messageId = generateMessageIDV2(sock.user?.id);
    const acked = new Promise<void>((resolve, reject) => waiting.set(messageId, { resolve, reject }));
    await sock.sendMessage(jid, { text }, { messageId });
    await acked;
  };
}
