import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver got it, verified with the `standardwebhooks` package. */
export interface ReceivedDelivery {
  id: string;
  /** Every secret given that verifies this delivery's signature header. */
  verifiedWith: string[];
  userAgent: string | undefined;
  status: number;
  event: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * A webhook endpoint on 127.0.0.1, as an integrator writes one: it verifies each delivery with
 * the secrets it knows and answers what `answer` says (200 unless told otherwise).
 */
export async function startWebhookReceiver() {
  const received: ReceivedDelivery[] = [];
  const secrets: string[] = [];
  let answer: (eventId: string, seenBefore: number) => number = () => 200;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = request.headers as Record<string, string>;
      const verifiedWith = secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      const id = headers['webhook-id'] ?? '';
      const status = answer(id, received.filter((r) => r.id === id).length);
      received.push({ id, verifiedWith, userAgent: headers['user-agent'], status, event: JSON.parse(body) as ReceivedDelivery['event'] });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    trust: (secret: string) => secrets.push(secret),
    answerWith: (fn: (eventId: string, seenBefore: number) => number) => (answer = fn),
    /** Deliveries that succeeded, once per event id, in arrival order. */
    accepted: () => {
      const seen = new Set<string>();
      return received.filter((r) => r.status < 300 && !seen.has(r.id) && seen.add(r.id));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/** Reads SSE frames from GET /v1/events as a browser's EventSource would, until stopped. */
export function openEventStream(url: string, apiKey: string, lastEventId?: string) {
  const frames: { id: string; event: string; data: { id: string; type: string; data: Record<string, unknown> } }[] = [];
  const abort = new AbortController();
  const opened = fetch(`${url}/v1/events`, {
    headers: { authorization: `Bearer ${apiKey}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: abort.signal,
  });
  const done = opened.then(async (response) => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
        if (fields['id']) frames.push({ id: fields['id'], event: fields['event'] ?? '', data: JSON.parse(fields['data'] ?? '{}') });
      }
    }
  }).catch(() => undefined);
  return {
    frames,
    response: opened,
    close: async () => {
      abort.abort();
      await done;
    },
  };
}
