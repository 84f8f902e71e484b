import { EventEmitter } from 'node:events';
import { generateMessageIDV2, jidDecode, makeWASocket } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, BinaryNode, ConnectionState, WAMessage, WAMessageKey, WASocket, WAVersion, proto } from '@whiskeysockets/baileys';
import type {
  ButtonsContent,
  ChatDriver,
  ChatDriverEventMap,
  ContactLookup,
  DisconnectReason,
  InboundEvent,
  LocationContent,
  MediaContent,
  OutgoingContent,
  PhoneNumber,
  PollContent,
  ReceiptEvent,
  SentContentSource,
  SentMessage,
  SendOptions,
  StartOptions,
  TextOptions,
} from '../driver.js';
import { BoundedMap } from '../bounded-map.js';
import { settledWithin } from '../settled-within.js';
import { ChatNetworkError, NotConnectedError } from '../errors.js';
import { classifyNetworkFailure, versionRejected, type NetworkFailure } from '../network-failure.js';
import type { SessionCredentials } from '../credentials/session-credentials.js';
import { openPollVote, pollMessageSecret, pollSecretKey } from './poll-votes.js';
import type { PollSecretKey } from './poll-votes.js';
import { boundCloseHandshake } from './keepalive.js';
import { CodePairing } from './pairing-code.js';
import { RecipientDirectory } from './recipient-directory.js';
import { reconnectDelayMs, type ReconnectPolicy } from './reconnect-policy.js';
import { closeAction, socketConfig, type SocketSettings } from './socket-settings.js';
import { downloadMedia } from './media-download.js';
import { ReceiptTracker } from './translate-events.js';
import { toInbound } from './translate-inbound.js';
import { LidSenders } from './lid-senders.js';
import type { TranslatedInbound } from './translate-inbound.js';
import { MessageSends, type MessageWrite } from './message-sends.js';
import { baileysContent, messageToResend, outgoingMessage, type OutgoingMessage } from './outgoing-message.js';
import { BUNDLED_WA_WEB_VERSION, type WaWebVersions } from './wa-web-version.js';

export interface BaileysDriverOptions {
  sessionId: string;
  credentials: SessionCredentials;
  settings: SocketSettings;
  reconnect: ReconnectPolicy;
  /** How long a send waits for the network's acknowledgement. */
  ackTimeoutMs: number;
  /** The WhatsApp Web version to announce, shared by the process's sockets. */
  versions: WaWebVersions;
  /** Our durable record of sent messages, for resends recipients ask for; unset = the recent sends only. */
  sentContent?: SentContentSource;
  onResendFailed?: (messageId: string, error: unknown) => void;
}

/** Messages kept for quoting (and for retry requests when there is no `sentContent`); older ones are dropped. */
const RECENT_MESSAGES = 128;
const FIRST_QR_MS = 60_000;
const NEXT_QR_MS = 20_000;
/** How long a stop lets the network acknowledge the sends already written. */
const ACKS_ON_STOP_MS = 2_000;
/** How long a stop lets received messages still on their way out (a media download) be told. */
const INBOUND_ON_STOP_MS = 10_000;
/** How long a stop lets the creds saves already asked for be written. */
const CREDS_ON_STOP_MS = 3_000;

interface RecentMessage {
  message: proto.IMessage;
  fromMe: boolean;
}

/** One session's connection through Baileys 7; see `ChatDriver` for the contract. */
export class BaileysChatDriver extends EventEmitter<ChatDriverEventMap> implements ChatDriver {
  readonly #options: BaileysDriverOptions;
  readonly #sends: MessageSends;
  readonly #receipts = new ReceiptTracker();
  readonly #recent = new BoundedMap<string, RecentMessage>(RECENT_MESSAGES);
  readonly #recipients = new RecipientDirectory();
  readonly #lidSenders: LidSenders;
  #creds: AuthenticationCreds | undefined;
  /** Derived from the creds on first use (see poll-votes.ts); forgotten with them. */
  #pollSecrets: PollSecretKey | undefined;
  #socket: WASocket | undefined;
  /** The WhatsApp Web version the current (or last) socket announced. */
  #version: WAVersion | undefined;
  /** The network refused a version since the last open, and a fresh one is being (or was) tried. */
  #versionRetried = false;
  /** An open connection was lost since the last open: the next open is a reconnect. */
  #lost = false;
  #open = false;
  #running = false;
  #failedAttempts = 0;
  #qrIssued = 0;
  /** Set by `start({ pairByCode })`: this driver pairs by code, not QR. */
  #codePairing: CodePairing | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  /** Counts start() calls: one that awaited its creds across a stop and a new start yields to it. */
  #starts = 0;
  /** Received messages go out in the order they arrived, media after its download. */
  #inbound: Promise<void> = Promise.resolve();
  /**
   * Settled once the current socket opened (`connected` told) or closed: what the network kept for
   * this device comes right after its login, before Baileys reports the connection open, and a
   * received message is recorded under the linked number, known from `connected` on.
   */
  #openedOrGone = openGate();

  constructor(options: BaileysDriverOptions) {
    super();
    this.#options = options;
    this.#sends = new MessageSends(options.ackTimeoutMs);
    // Held messages are kept with the credentials; after a logout (creds forgotten) nothing is written back.
    const credentials = options.credentials;
    this.#lidSenders = new LidSenders({
      readRecord: (kind, keyId) => credentials.readRecord(kind, keyId),
      writeRecords: async (rows) => (this.#creds ? credentials.writeRecords(rows) : undefined),
    });
  }

  get sessionId(): string {
    return this.#options.sessionId;
  }

  async start(options: StartOptions = {}): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    if (options.pairByCode) this.#codePairing = new CodePairing(options.pairByCode, this.#qrLifetimes());
    this.#failedAttempts = 0;
    this.#versionRetried = false;
    this.#lost = false;
    const start = ++this.#starts;
    let creds: AuthenticationCreds;
    try {
      // Read at start (the store may be a network away); later sockets reuse the object Baileys updates.
      creds = this.#creds ?? (await this.#options.credentials.loadOrInitCreds());
    } catch (error) {
      if (start === this.#starts) this.#running = false;
      throw error;
    }
    // stop() or logout() while the creds were being read (maybe a start again): this start is over.
    if (!this.#running || start !== this.#starts) return;
    this.#creds = creds;
    this.#connect();
  }

  /**
   * Resolves once the socket is closed (bounded by 3 s): another replica may open this device's
   * next connection right after, and the network must never see the two overlap.
   */
  async stop(options: { waitForAcks?: boolean } = {}): Promise<void> {
    this.#running = false;
    const socket = this.#socket;
    // Sends already written get their acks first (bounded): cut off, they would be in doubt and
    // carried again by the next owner under the same id.
    const acksBy = performance.now() + (options.waitForAcks === false ? 0 : ACKS_ON_STOP_MS);
    while (this.#open && this.#sends.pending > 0 && performance.now() < acksBy) await new Promise((resolve) => setTimeout(resolve, 5));
    this.#closeSocket(new NotConnectedError(this.sessionId));
    // Baileys' end() drops every 'close' listener of its socket before closing it: watched by state instead.
    const giveUpAt = performance.now() + 3_000;
    while (socket && !socket.ws.isClosed && performance.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 5));
    // Another replica may open the next connection at once: the closed socket writes nothing more
    // (the creds saves it asked for are written first), and a later start() reads the store.
    // Started again meanwhile (this process keeps the session): nothing to fence.
    if (!this.#running) await this.#options.credentials.fence(CREDS_ON_STOP_MS);
    // The network was told they arrived and never sends them again: told now, or lost.
    await settledWithin(this.#inbound, INBOUND_ON_STOP_MS);
    if (!this.#running) this.#forgetCreds();
  }

  async logout(): Promise<void> {
    const socket = this.#open ? this.#socket : undefined;
    this.#running = false;
    // The phone learns of the unlink from this node; the local wipe happens even if it was not sent.
    const told = socket ? await socket.logout().then(() => true, () => false) : false;
    this.#closeSocket(new NotConnectedError(this.sessionId));
    // A failed wipe does not undo the unlink; the registry wipes again when it ends the session, and reports.
    await this.#loggedOut().catch(() => undefined);
    if (!told) throw new NotConnectedError(this.sessionId);
  }

  inboundRecorded(networkMessageId: string): void {
    this.#lidSenders.recorded(networkMessageId);
    // On the inbound chain: the held rows' list is written by one step at a time.
    this.#inbound = this.#inbound.then(() => this.#lidSenders.forgetRecorded()).catch(() => undefined);
  }

  async showTyping(to: PhoneNumber, ms: number): Promise<void> {
    const socket = this.#requireOpenSocket();
    const jid = await this.#recipients.requireOnNetwork(socket, to);
    try {
      await socket.sendPresenceUpdate('composing', jid);
      await new Promise((resolve) => setTimeout(resolve, ms));
      await socket.sendPresenceUpdate('paused', jid);
    } catch (error) {
      throw this.#writeFailure(socket, error);
    }
  }

  async lookupContact(phone: PhoneNumber): Promise<ContactLookup> {
    return this.#recipients.lookup(this.#requireOpenSocket(), phone);
  }

  async sendText(to: PhoneNumber, text: string, options: TextOptions = {}): Promise<SentMessage> {
    return this.#send(to, options, { type: 'text', text, ...(options.quotedId === undefined ? {} : { quotedId: options.quotedId }) });
  }

  async sendMedia(to: PhoneNumber, media: MediaContent, options: SendOptions = {}): Promise<SentMessage> {
    return this.#send(to, options, { type: 'media', media });
  }

  async sendLocation(to: PhoneNumber, location: LocationContent, options: SendOptions = {}): Promise<SentMessage> {
    return this.#send(to, options, { type: 'location', location });
  }

  async sendButtons(to: PhoneNumber, buttons: ButtonsContent, options: SendOptions = {}): Promise<SentMessage> {
    return this.#send(to, options, { type: 'buttons', buttons });
  }

  /** The poll's secret is derived from its network id: written again (same id), it stays the same. */
  async sendPoll(to: PhoneNumber, poll: PollContent, options: SendOptions = {}): Promise<SentMessage> {
    return this.#send(to, options, { type: 'poll', poll });
  }

  /**
   * The recipient lookup and the message's generation (a media's upload) count against the ack
   * deadline: on a silent socket the lookup would wait 60 s, and a send given up on during its
   * upload is never written. Content the network would not take fails at once (`RangeError`).
   */
  async #send(to: PhoneNumber, options: SendOptions, content: OutgoingContent): Promise<SentMessage> {
    const socket = this.#requireOpenSocket();
    const userJid = this.#creds?.me?.id;
    if (!userJid) throw new NotConnectedError(this.sessionId);
    const messageId = options.id ?? generateMessageIDV2(socket.user?.id);
    const checked = baileysContent(content, () => pollMessageSecret(this.#pollKey(), messageId));
    const prepare = async (): Promise<MessageWrite> => {
      const jid = await this.#recipients.requireOnNetwork(socket, to);
      let outgoing: OutgoingMessage;
      try {
        outgoing = await outgoingMessage(socket, checked, { jid, messageId, userJid, quoted: (quotedId) => this.#quoted(jid, quotedId) });
      } catch (error) {
        throw this.#writeFailure(socket, error);
      }
      return async (target) => {
        await target.relayMessage(jid, outgoing.message, { messageId, additionalNodes: outgoing.nodes });
        this.#recent.set(messageId, { message: outgoing.message, fromMe: true });
      };
    };
    return this.#sends.send(messageId, socket, prepare, (error) => this.#writeFailure(socket, error));
  }

  /** The key of this device's poll secrets; its credentials are loaded whenever a socket is open. */
  #pollKey(): PollSecretKey {
    if (!this.#creds) throw new NotConnectedError(this.sessionId);
    this.#pollSecrets ??= pollSecretKey(this.#creds);
    return this.#pollSecrets;
  }

  /** A vote on a poll we sent, opened: the chosen options' hashes, or null when it does not open. */
  #openVote(vote: NonNullable<TranslatedInbound['vote']>): string[] | null {
    const me = this.#creds?.me;
    if (!me) return null;
    return openPollVote(vote.vote, { secret: pollMessageSecret(this.#pollKey(), vote.pollId), pollId: vote.pollId, creatorJids: [me.lid, me.id], voterJids: vote.voterJids });
  }

  #writeFailure(socket: WASocket, error: unknown): Error {
    return this.#isOpen(socket) ? new ChatNetworkError('sending failed', { cause: error }) : new NotConnectedError(this.sessionId);
  }

  #quoted(jid: string, quotedId: string) {
    const recent = this.#recent.get(quotedId);
    // Unknown messages are quoted by id only; the recipient's app shows its own copy.
    return {
      key: { remoteJid: jid, id: quotedId, fromMe: recent?.fromMe ?? false },
      message: recent?.message ?? { conversation: '' },
    };
  }

  #requireOpenSocket(): WASocket {
    const socket = this.#socket;
    if (!socket || !this.#isOpen(socket)) throw new NotConnectedError(this.sessionId);
    return socket;
  }

  #isOpen(socket: WASocket): boolean {
    return this.#open && socket === this.#socket;
  }

  /** Opens the next socket once the version to announce is known (the current one unless given). */
  #connect(version: Promise<WAVersion> = this.#options.versions.current()): void {
    this.#reconnectTimer = undefined;
    const start = this.#starts;
    void version.then((announced) => {
      // Stopped, logged out or started anew while the version was looked up.
      if (this.#running && start === this.#starts && !this.#socket) this.#openSocket(announced);
    });
  }

  #openSocket(version: WAVersion): void {
    const { credentials, settings } = this.#options;
    // Loaded by start(); only a logout clears them, and that also ends the running.
    const creds = this.#creds;
    if (!creds) return;
    const { saveCreds, ...auth } = credentials.authStateUntilWipe(creds);
    this.#codePairing?.prepare(creds);
    const socket = makeWASocket(socketConfig(settings, auth, (key) => this.#messageForRetry(key), version));
    this.#openedOrGone.open();
    this.#openedOrGone = new Gate();
    boundCloseHandshake(socket);
    settings.keepalive.watch(socket);
    this.#socket = socket;
    this.#version = version;
    this.#qrIssued = 0;
    this.#codePairing?.watch(socket);
    socket.ev.on('creds.update', saveCreds);
    socket.ev.on('connection.update', (update) => this.#onConnectionUpdate(socket, update));
    socket.ev.on('messages.update', (updates) => this.#emitReceipts(this.#receipts.fromUpdates(updates)));
    socket.ev.on('messages.upsert', ({ messages, type }) => this.#onUpsert(socket, messages, type));
    socket.ev.on('lid-mapping.update', ({ lid, pn }) => this.#emitAll(async () => this.#lidSenders.release(lid, pn)));
    socket.ws.on('CB:ack,class:message', (node: BinaryNode) => this.#sends.onAck(node));
    // An HTTP answer instead of the WebSocket upgrade (a blocking proxy, a refusal): the attempt
    // would wait out the connect timeout (keepalive.ts). End it now; no status code, so it is not read as a
    // logout (403 would be), and the message names the status for classifyNetworkFailure.
    socket.ws.on('unexpected-response', (_request: unknown, response: { statusCode?: number }) => {
      void socket.end(new Error(`Unexpected server response: ${response.statusCode}`) as never);
    });
    socket.ws.on('CB:receipt', (node: BinaryNode) => {
      const own = this.#creds?.me;
      this.#emitReceipts(this.#receipts.fromReceiptNode(node, [own?.id, own?.lid]));
    });
  }

  /**
   * Baileys' `getMessage`, asked when a recipient's phone could not decrypt one of our messages and
   * sent a retry receipt: Baileys sends what this answers again, under the same id. Answered from
   * our durable record (`sentContent`: it survives restarts, and an erased content is not in it),
   * else, without one, from the recent sends. Nothing found: no resend, as Baileys does.
   */
  async #messageForRetry(key: WAMessageKey): Promise<proto.IMessage | undefined> {
    const id = key.id;
    if (!id || key.fromMe === false) return undefined;
    const source = this.#options.sentContent;
    if (!source) return this.#recent.get(id)?.message;
    const socket = this.#socket;
    const me = this.#creds?.me;
    if (!socket || !me) return undefined;
    try {
      const sent = await source(id);
      // Only the recipient (or one of our own devices) may have it again: a contact who learnt
      // another message's id (from a quote) must not get it re-encrypted to them.
      if (!sent || !(await this.#askedByRecipient(socket, key, sent.to))) return undefined;
      const jid = key.remoteJid ?? me.id;
      const context = { jid, messageId: id, userJid: me.id, quoted: (quotedId: string) => this.#quoted(jid, quotedId), pollSecret: () => pollMessageSecret(this.#pollKey(), id) };
      return await messageToResend(socket, sent.content, context);
    } catch (error) {
      // The record could not be read (messaging away) or the media not uploaded: the phone may ask again.
      this.#options.onResendFailed?.(id, error);
      return undefined;
    }
  }

  /** Whether the retry receipt came from `to`'s chat (by number, or by the LID the stored mapping names), or from our own devices. */
  async #askedByRecipient(socket: WASocket, key: WAMessageKey, to: PhoneNumber): Promise<boolean> {
    const asker = jidDecode(key.remoteJid ?? undefined);
    if (!asker) return false;
    const me = this.#creds?.me;
    const own = [jidDecode(me?.id)?.user, jidDecode(me?.lid)?.user];
    if (own.includes(asker.user)) return true;
    if (asker.server === 's.whatsapp.net') return asker.user === to;
    if (asker.server !== 'lid') return false;
    const phone = await socket.signalRepository.lidMapping.getPNForLID(`${asker.user}@lid`).catch(() => undefined);
    return jidDecode(phone ?? undefined)?.user === to;
  }

  /**
   * `notify`: received live; `append`: what the network kept for this device while it was offline
   * (marked `offline`, already acknowledged to the network, never sent again), a message the phone
   * sent again on request, or our own sends echoed back (not inbound: skipped here).
   */
  #onUpsert(socket: WASocket, messages: WAMessage[], type: string): void {
    this.#emitReceipts(this.#receipts.fromUpserts(messages));
    const lidMapping = socket.signalRepository.lidMapping;
    const opened = this.#openedOrGone.opened;
    for (const message of messages) {
      if (type === 'append' && message.key.fromMe) continue;
      this.#emitAll(async () => {
        await opened;
        return [...(await this.#restoreHeld(socket)), ...(await this.#lidSenders.name(message, (lid) => lidMapping.getPNForLID(lid)))];
      });
    }
  }

  /** The held messages of before a restart the stored mapping names (once; tried again while the store does not answer). */
  #restoreHeld(socket: WASocket): Promise<WAMessage[]> {
    return this.#lidSenders.restore((lid) => socket.signalRepository.lidMapping.getPNForLID(lid)).catch(() => []);
  }

  /**
   * Received messages go out in the order they arrived: media is downloaded before its event goes
   * out, and a sender's number may have to be looked up (see LidSenders); later messages wait.
   */
  #emitAll(named: () => Promise<WAMessage[]>): void {
    this.#inbound = this.#inbound
      .then(async () => {
        for (const message of await named()) {
          const inbound = this.#received(message);
          if (inbound) await this.#emitInbound(inbound);
        }
        // Held ones recorded since: no longer kept for after a restart (a failed removal only tells them again then).
        await this.#lidSenders.forgetRecorded();
      })
      // A listener's failure is its own: the messages after it still go out.
      .catch(() => undefined);
  }

  /** The message as an inbound event (kept for quoting), or undefined when it is none. */
  #received(message: WAMessage | undefined): TranslatedInbound | undefined {
    const inbound = message && toInbound(message);
    if (!inbound || !message.message) return undefined;
    this.#recent.set(inbound.event.id, { message: message.message, fromMe: false });
    return inbound;
  }

  async #emitInbound(inbound: TranslatedInbound): Promise<void> {
    const { event, download, vote } = inbound;
    if (event.content.type === 'poll_vote' && vote) {
      return void this.emit('inbound', { ...event, content: { ...event.content, selectedOptionHashes: this.#openVote(vote) } });
    }
    if (event.content.type !== 'media' || !download) return void this.emit('inbound', event as InboundEvent);
    try {
      const bytes = await downloadMedia(download.media, download.type, this.#options.settings.network.fetchAgent);
      this.emit('inbound', { ...event, content: { type: 'media', media: { ...event.content.media, bytes } } });
    } catch {
      // Gone from the network's media host, or corrupt: the message is still told, as what it was.
      this.emit('inbound', { ...event, content: { type: 'unsupported', rawType: `${download.type}Message (media not downloadable)` } });
    }
  }

  #emitReceipts(receipts: ReceiptEvent[]): void {
    for (const receipt of receipts) this.emit('receipt', receipt);
  }

  #onConnectionUpdate(socket: WASocket, update: Partial<ConnectionState>): void {
    if (socket !== this.#socket) return;
    if (update.qr) this.#onQr(socket, update.qr);
    if (update.connection === 'open') this.#onOpen(socket);
    if (update.connection === 'close') this.#onClose(update.lastDisconnect?.error);
  }

  /**
   * Pairing by code, the first QR also says the registration is open: the code is asked for then
   * (told once). The QR codes are told too: until one of the two is used, either links the device.
   */
  #onQr(socket: WASocket, code: string): void {
    this.#emitQr(code);
    // A failure means the socket closed meanwhile: its close says what happens next.
    void this.#codePairing?.onQr(socket).then(
      (event) => {
        if (event && socket === this.#socket) this.emit('pairingCode', event);
      },
      () => undefined,
    );
  }

  #emitQr(code: string): void {
    const lifetimeMs = this.#options.settings.qrTimeoutMs ?? (this.#qrIssued === 0 ? FIRST_QR_MS : NEXT_QR_MS);
    this.#qrIssued += 1;
    this.emit('qr', { code, expiresAt: new Date(Date.now() + lifetimeMs) });
  }

  /** How long each of a registration's QR refs lasts (Baileys shows them on this timer). */
  #qrLifetimes(): { firstMs: number; nextMs: number } {
    const { qrTimeoutMs } = this.#options.settings;
    return { firstMs: qrTimeoutMs ?? FIRST_QR_MS, nextMs: qrTimeoutMs ?? NEXT_QR_MS };
  }

  #onOpen(socket: WASocket): void {
    this.#open = true;
    this.#failedAttempts = 0;
    this.#versionRetried = false;
    const reconnected = this.#lost;
    this.#lost = false;
    // Written to the lost socket and never acknowledged: out again on this one, same ids.
    this.#sends.rewriteOn(socket, (error) => this.#writeFailure(socket, error));
    const phone = jidDecode(this.#creds?.me?.id)?.user;
    if (phone) this.emit('connected', { phone, ...(reconnected ? { reconnected } : {}) });
    this.#openedOrGone.open();
    // Messages held before a restart, told after `connected` (a received message is recorded under
    // the linked number, known from then on); out now if the stored mapping names their senders.
    this.#emitAll(() => this.#restoreHeld(socket));
  }

  #onClose(error: (Error & { output?: { statusCode?: number } }) | undefined): void {
    // A linked connection was lost (not a pairing socket, not a failed attempt).
    this.#lost ||= this.#open;
    this.#open = false;
    this.#socket = undefined;
    this.#openedOrGone.open();
    if (!this.#running) return this.#failUnacknowledged(error);
    const action = closeAction({ statusCode: error?.output?.statusCode, message: error?.message });
    // Sends already written wait for the next socket (until their deadline) where one follows.
    if (action === 'restart') return this.#connect();
    if (action === 'reconnect') return this.#scheduleReconnect(classifyNetworkFailure(error, this.#options.settings.keepalive.intervalMs));
    if (action === 'version_refused') return this.#versionRefused(error);
    this.#failUnacknowledged(error);
    this.#running = false;
    // The listener of `disconnected` ends the session and wipes again, reporting a failure.
    if (action === 'logged_out') return void this.#loggedOut().catch(() => undefined);
    this.#disconnected(action, false);
  }

  /** Refused as outdated: once with the version looked up anew, then the session cannot go on. */
  #versionRefused(error: Error | undefined): void {
    const refused = this.#version ?? BUNDLED_WA_WEB_VERSION;
    if (!this.#versionRetried) {
      this.#versionRetried = true;
      return this.#connect(this.#options.versions.refreshed(refused));
    }
    this.#failUnacknowledged(error);
    this.#running = false;
    this.#disconnected('version_rejected', false, versionRejected(refused));
  }

  #scheduleReconnect(failure: NetworkFailure | undefined): void {
    const { reconnect } = this.#options;
    this.#failedAttempts += 1;
    const willReconnect = this.#failedAttempts <= reconnect.maxAttempts;
    this.#disconnected('connection_lost', willReconnect, failure);
    if (!willReconnect) {
      this.#running = false;
      this.#failUnacknowledged(undefined);
      return;
    }
    this.#reconnectTimer = setTimeout(() => this.#connect(), reconnectDelayMs(reconnect, this.#failedAttempts));
  }

  #failUnacknowledged(cause: Error | undefined): void {
    this.#sends.failAll(new ChatNetworkError('the connection closed before the network acknowledged the message', { cause }));
  }

  /** Forgets the creds in memory (what was derived from them too): read from the store at the next start. */
  #forgetCreds(): void {
    this.#creds = undefined;
    this.#pollSecrets = undefined;
  }

  /** Wipes the credentials (started before `disconnected` is told; resolves once they are gone). */
  #loggedOut(): Promise<void> {
    this.#forgetCreds();
    this.#recent.clear();
    const wiped = this.#options.credentials.wipe();
    this.#disconnected('logged_out', false);
    return wiped;
  }

  #disconnected(reason: DisconnectReason, willReconnect: boolean, failure?: NetworkFailure): void {
    this.emit('disconnected', { reason, willReconnect, ...(failure ? { failure } : {}) });
  }

  #closeSocket(reason: Error): void {
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    const socket = this.#socket;
    this.#socket = undefined;
    this.#open = false;
    this.#openedOrGone.open();
    this.#sends.failAll(reason);
    socket?.end(undefined);
  }
}

/** A promise opened once by whoever holds it (`open` again does nothing). */
class Gate {
  open: () => void = () => undefined;
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));
}

/** An open gate (no socket yet). */
function openGate(): Gate {
  const gate = new Gate();
  gate.open();
  return gate;
}
