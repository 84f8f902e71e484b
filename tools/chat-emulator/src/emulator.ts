import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { makeCertChain } from './cert-chain.js';
import { ChatServer } from './chat-server.js';
import { ChatStates } from './chat-states.js';
import { DeviceControl } from './devices.js';
import { Connection } from './connection.js';
import { createControlServer } from './control-api.js';
import type { ControlOperations } from './control-api.js';
import { EmulatorError } from './errors.js';
import { loadOrCreateIdentity } from './identity.js';
import type { NetworkIdentity } from './identity.js';
import { sendInbound } from './inbound.js';
import type { Addressing } from './inbound-spec.js';
import { MediaHost } from './media-host.js';
import { MessageRouter } from './messages.js';
import { REAL_PAIRING } from './model.js';
import type { PairingSchedule } from './model.js';
import { Network } from './network.js';
import { PairingService } from './pairing-service.js';
import { readQrCode } from './qr-image.js';
import { quietLibsignal } from './quiet-libsignal.js';
import { ReceiptScheduler } from './receipts.js';
import { StateStore } from './state-store.js';
import type { WaVersion } from './versions.js';

export interface EmulatorOptions {
  /** WebSocket (and `/trust`) port; 0 = a free port. */
  port?: number;
  /** Control API port; 0 (default) = a free port. */
  controlPort?: number;
  /** Keep linked devices, contacts and what they received here; memory only without it. */
  dataDir?: string;
  /** QR ref windows; default the real network's (60 s, then 20 s each, 6 refs). */
  pairing?: Partial<PairingSchedule>;
  /** Only loopback is allowed: the emulator is a man-in-the-middle switch for chat clients. */
  host?: string;
  /**
   * How the network names contacts to linked devices: `lid` (default, as WhatsApp now does: the
   * contact's LID with its number beside it) or `pn`. A control call may ask for either.
   */
  addressing?: Addressing;
  /**
   * Refuse clients announcing an older WhatsApp Web version with `<failure reason="405"/>`, as the
   * network does once a version is retired; unset = any version. `POST /network/min-version` changes it.
   */
  minVersion?: WaVersion;
  /** Called with unexpected errors from client connections (default: ignored). */
  onError?: (error: unknown) => void;
}

export interface RunningEmulator {
  /** `ws://127.0.0.1:PORT/ws/chat`: pass as Baileys' `waWebSocketUrl`. */
  wsUrl: string;
  /** `http://127.0.0.1:CPORT`: the control API. */
  controlUrl: string;
  /** Set Baileys' `WA_CERT_DETAILS.PUBLIC_KEY` to this to trust the emulator's Noise certificates. */
  rootPublicKey: Buffer<ArrayBuffer>;
  /** Trust this certificate (and only it) for media uploads: `new https.Agent({ ca })`. */
  mediaCertificatePem: string;
  stop(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';
const WS_PATH = '/ws/chat';

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK, () => resolve((server.address() as AddressInfo).port));
  });

const close = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const trustServer = (identity: NetworkIdentity): Server =>
  createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/trust') {
      const trust = { rootPublicKey: Buffer.from(identity.root.public).toString('hex'), mediaCertificatePem: identity.tls.certPem };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(trust));
    }
    res.writeHead(404).end();
  });

const pairingSchedule = (overrides: Partial<PairingSchedule> = {}): PairingSchedule => {
  const schedule = { ...REAL_PAIRING, ...overrides };
  for (const [key, value] of Object.entries(schedule)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`pairing.${key} must be a positive integer, got ${value}`);
  }
  return schedule;
};

/** The network's parts, wired together (no sockets yet). */
const buildNetwork = (options: EmulatorOptions, store: StateStore | undefined, media: MediaHost) => {
  const network = new Network(store, options.minVersion);
  const receipts = new ReceiptScheduler(network);
  const messages = new MessageRouter(network, receipts, (path) => media.read(path), options.addressing ?? 'lid');
  const devices = new DeviceControl(network);
  const pairing = new PairingService(network, pairingSchedule(options.pairing), (phone) => devices.unlinkIfLinked(phone));
  const chatStates = new ChatStates();
  const chat = new ChatServer(network, pairing, messages, () => media.hostname, chatStates);
  return { network, receipts, messages, devices, pairing, chat, chatStates };
};

/** The WebSocket endpoint (`/ws/chat`) with `GET /trust` beside it on the same HTTP server. */
const chatEndpoint = (identity: NetworkIdentity, chat: ChatServer, onError: (error: unknown) => void) => {
  const serverIdentity = { staticKey: identity.staticKey, certChain: makeCertChain(identity.root, identity.staticKey.public) };
  const http = trustServer(identity);
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== WS_PATH) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => new Connection(ws, serverIdentity, chat, onError));
  });
  return { http, wss };
};

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  if (options.host !== undefined && options.host !== LOOPBACK) {
    throw new Error(`the chat emulator only listens on ${LOOPBACK}, not ${options.host}`);
  }
  quietLibsignal();
  const store = options.dataDir ? new StateStore(options.dataDir) : undefined;
  const identity = loadOrCreateIdentity(store);
  const media = new MediaHost(identity.tls, store);
  const parts = buildNetwork(options, store, media);
  const { http, wss } = chatEndpoint(identity, parts.chat, options.onError ?? (() => {}));
  const control = createControlServer(controlOperations(parts, media, options.addressing ?? 'lid'));
  const stop = async (): Promise<void> => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    parts.receipts.stop();
    await Promise.all([close(http), close(control), media.stop()]);
    parts.network.flush();
  };
  try {
    await media.start();
    const port = await listen(http, options.port ?? 0);
    const controlPort = await listen(control, options.controlPort ?? 0);
    return {
      wsUrl: `ws://${LOOPBACK}:${port}${WS_PATH}`,
      controlUrl: `http://${LOOPBACK}:${controlPort}`,
      rootPublicKey: Buffer.from(identity.root.public),
      mediaCertificatePem: identity.tls.certPem,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

type NetworkParts = ReturnType<typeof buildNetwork>;

const controlOperations = ({ network, devices, pairing, messages, chatStates }: NetworkParts, media: MediaHost, addressing: Addressing): ControlOperations => ({
  scan: async (qrCode, phone) => {
    const text = readQrCode(qrCode);
    if (!text) throw new EmulatorError(400, 'qr_unreadable', 'no QR code found in the image');
    return pairing.scan(text, phone);
  },
  pair: (phone, code) => pairing.enterCode(phone, code),
  setContact: (phone, settings) => {
    network.setContact(phone, settings);
    return settings;
  },
  // A poll's secret stays on the phone: the control API shows what the contact sees.
  received: (phone) => network.received(phone).map(({ pollSecret: _secret, ...shown }) => shown),
  chatStates: (phone) => chatStates.of(phone),
  inbound: (from, spec) => sendInbound(network, (blob) => media.host(blob), from, spec, addressing),
  drop: (phone) => devices.drop(phone),
  blackhole: (phone) => devices.blackhole(phone),
  endBlackhole: (phone) => devices.endBlackhole(phone),
  logout: (phone) => devices.logout(phone),
  setMinVersion: (version) => {
    network.minVersion = version ?? undefined;
  },
  setMediaDownloadDelay: (ms) => {
    media.downloadDelayMs = ms;
  },
  device: (phone) => devices.describe(phone),
  health: (gc) => {
    const collect = (globalThis as { gc?: () => void }).gc;
    if (gc && collect) collect();
    const { heapUsed, rss } = process.memoryUsage();
    const cpu = process.cpuUsage();
    const proc = { cpuMs: Math.round((cpu.user + cpu.system) / 1000), heapUsedBytes: heapUsed, rssBytes: rss };
    const minVersion = network.minVersion ?? null;
    return { status: 'ok', devices: network.devices.size, online: network.online.size, minVersion, messages: messages.stats, process: proc };
  },
});
