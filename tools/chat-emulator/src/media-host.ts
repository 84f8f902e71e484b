import { createServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { StateStore } from './state-store.js';
import type { TlsMaterial } from './tls-cert.js';

const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** In-memory mode keeps at most this many bytes of uploads (oldest dropped first). */
const MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;

/**
 * The network's media servers: Baileys uploads encrypted media over HTTPS to the host named in
 * `media_conn`, and puts the returned direct path in the message; the recipient downloads it.
 */
export class MediaHost {
  private server: Server | undefined;
  private readonly blobs = new Map<string, Buffer>();
  private memoryBytes = 0;
  port = 0;
  /** How long a download waits before it is answered: a slow media host (control API). */
  downloadDelayMs = 0;

  constructor(
    private readonly tls: TlsMaterial,
    private readonly store: StateStore | undefined,
  ) {}

  get hostname(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer({ key: this.tls.keyPem, cert: this.tls.certPem }, (req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The encrypted bytes stored under a direct path, as a recipient would download them. */
  read(directPath: string): Buffer | undefined {
    const token = directPath.split('/').pop()?.split('?')[0] ?? '';
    return this.blobs.get(token) ?? this.store?.loadMedia(token);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET') return this.download(req, res);
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_UPLOAD_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const { url, directPath } = this.host(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ url, direct_path: directPath }));
    });
  }

  /** Stores an (encrypted) upload: what a client uploads over HTTPS, or a contact's phone sends. */
  host(blob: Buffer): { url: string; directPath: string } {
    const token = randomBytes(16).toString('hex');
    this.save(token, blob);
    const directPath = `/m/${token}`;
    return { url: `https://${this.hostname}${directPath}`, directPath };
  }

  private download(req: IncomingMessage, res: ServerResponse): void {
    const bytes = this.read(req.url ?? '');
    if (!bytes) return void res.writeHead(404).end();
    const answer = (): void => void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    if (this.downloadDelayMs === 0) return answer();
    const timer = setTimeout(answer, this.downloadDelayMs);
    res.on('close', () => clearTimeout(timer));
  }

  private save(token: string, bytes: Buffer): void {
    if (this.store) return this.store.saveMedia(token, bytes);
    this.blobs.set(token, bytes);
    this.memoryBytes += bytes.length;
    for (const [oldest, blob] of this.blobs) {
      if (this.memoryBytes <= MEMORY_BUDGET_BYTES) break;
      this.blobs.delete(oldest);
      this.memoryBytes -= blob.length;
    }
  }
}
