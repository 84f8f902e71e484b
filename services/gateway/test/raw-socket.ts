import { connect } from 'node:net';

/** What a client on a bare TCP connection saw: the first response, if any, and whether the server hung up. */
export interface RawAnswer {
  /** null: no complete response arrived before `waitMs`. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** The server closed (or reset) the connection. */
  closed: boolean;
}

export interface RawExchangeOptions {
  /** Pause before each chunk after the first (a slow client). */
  gapMs?: number;
  /** How long to wait for an answer at most. */
  waitMs?: number;
  /** After the answer, also wait (within `waitMs`) for the server to close the connection. */
  awaitClose?: boolean;
}

/**
 * Sends `chunks` as they are over one connection to 127.0.0.1:`port` (none of node's or undici's
 * checks in the way) and reads the first response: complete once its Content-Length is in. Stops
 * sending as soon as the server answers or hangs up.
 */
export function rawExchange(port: number, chunks: Iterable<string | Buffer>, options: RawExchangeOptions = {}): Promise<RawAnswer> {
  const { gapMs = 0, waitMs = 5_000, awaitClose = false } = options;
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let answer: RawAnswer | null = null;
    let closed = false;
    const finish = () => {
      clearTimeout(deadline);
      socket.destroy();
      resolve({ ...(answer ?? { status: null, headers: {}, body: received.toString('latin1') }), closed });
    };
    const deadline = setTimeout(finish, waitMs);
    const settled = () => answer !== null && (!awaitClose || closed);
    socket.on('data', (data) => {
      received = Buffer.concat([received, data]);
      answer ??= parseResponse(received);
      if (settled()) finish();
    });
    socket.on('error', () => undefined); // a reset is a close; 'close' follows
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.once('connect', async () => {
      let first = true;
      for (const chunk of chunks) {
        if (!first && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        first = false;
        if (answer !== null || closed || socket.destroyed) return;
        socket.write(chunk);
      }
    });
  });
}

function parseResponse(bytes: Buffer): RawAnswer | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return null;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8'), closed: false };
}

/** An HTTP/1.1 request head, lines joined with CRLF, ending with the blank line. */
export function head(requestLine: string, headers: Record<string, string> = {}): string {
  const lines = [requestLine, 'Host: 127.0.0.1', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}
