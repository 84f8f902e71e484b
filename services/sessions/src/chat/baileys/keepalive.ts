import type { WASocket } from '@whiskeysockets/baileys';

/**
 * How often each socket pings the network (an `iq xmlns="w:p"`). Baileys ends a socket that has
 * received nothing for this plus 5 s, checked at each ping (socket.js, `startKeepAliveRequest`):
 * a socket that goes silent is found 20 to 40 s later, within the 60 s promised (Baileys' own
 * 30 s would take up to 60). WhatsApp Web and whatsmeow ping every 20 to 30 s (keepalive.go).
 */
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 20_000;

/** How long a closing socket waits for the network to answer its close before it is cut. */
const CLOSE_HANDSHAKE_MS = 2_000;

/** Baileys' WebSocket client as far as closing goes (`socket` is protected in its typings). */
interface ClosableClient {
  close(): Promise<void>;
  socket: { terminate(): void } | null;
}

/**
 * Bounds the close of `socket`: Baileys' `end()` awaits the WebSocket's closing handshake before
 * it reports the close, and on a dead path (just what the keepalive found) nothing answers, so
 * `ws` would wait out its 30 s close timeout (not settable through Baileys) before the driver could
 * reconnect. After `limitMs` the TCP connection is cut instead.
 */
export function boundCloseHandshake(socket: WASocket, limitMs = CLOSE_HANDSHAKE_MS): void {
  const client = socket.ws as unknown as ClosableClient;
  const close = client.close.bind(client);
  client.close = async () => {
    const raw = client.socket;
    const cut = setTimeout(() => raw?.terminate(), limitMs);
    try {
      await close();
    } finally {
      clearTimeout(cut);
    }
  };
}
