import http from 'node:http';

export interface JsonReply {
  status: number;
  body: unknown;
}

/**
 * JSON requests over kept-alive loopback connections with `node:http`: the send bench's client,
 * lean so that a latency figure is the server's. `fetch` (undici) spent about 0.2 ms more per
 * exchange and 0.3 ms more CPU on this machine, which the bench would count as API overhead.
 */
export class JsonClient {
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  post(path: string, body: unknown): Promise<JsonReply> {
    const payload = JSON.stringify(body);
    const headers = { ...this.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    return new Promise((resolve, reject) => {
      const request = http.request(`${this.baseUrl}${path}`, { method: 'POST', agent: this.#agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
        response.on('error', reject);
      });
      request.on('error', reject);
      request.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
