/**
 * The bare handler `bench:reads` measures Switchboard's reads against: a fastify app on the same
 * Node, in a process of its own (its CPU read from /proc like the server's), answering each path
 * in BARE_FASTIFY_BODIES (a JSON object: path -> body) with that body (copied from Switchboard's own answer). Prints its port.
 */
import Fastify from 'fastify';

const bodies = JSON.parse(process.env['BARE_FASTIFY_BODIES'] ?? '{}') as Record<string, unknown>;
const app = Fastify();
for (const [path, body] of Object.entries(bodies)) app.get(path, async () => body);
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
