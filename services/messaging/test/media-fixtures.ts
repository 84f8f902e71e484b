import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Real files' first bytes, enough for sniffing. */
export const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
export const MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.from([0, 0, 0, 0]), Buffer.from('mp42isom'), Buffer.alloc(64),
]);
export const MP3 = Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(400)]);

/** A loopback HTTP server whose routes the test defines; counts connections it accepted. */
export class MediaServer {
  connections = 0;
  private constructor(private readonly server: Server) {}

  static async start(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<MediaServer> {
    const server = createServer(handler);
    const media = new MediaServer(server);
    server.on('connection', () => media.connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return media;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
