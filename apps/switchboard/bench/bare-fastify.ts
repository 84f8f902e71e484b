/**
 * The bare handler `bench:reads` measures Switchboard's reads against (and `bench:send` its HTTP
 * exchange): a fastify app on the same Node, in a process of its own (its CPU read from /proc like
 * the server's), answering each path in BARE_FASTIFY_BODIES (a JSON object: path -> body), GET or
 * POST, with that body (copied from Switchboard's own answer). Prints its port.
 * BARE_FASTIFY_WORK_US: CPU the handler burns per request before answering (default 0), for the
 * calibration rows: what rate the same bare app keeps once its handler does that much work.
 */
import Fastify from 'fastify';

const bodies = JSON.parse(process.env['BARE_FASTIFY_BODIES'] ?? '{}') as Record<string, unknown>;
const workNs = BigInt(Math.round(Number(process.env['BARE_FASTIFY_WORK_US'] ?? 0) * 1000));
const app = Fastify();
for (const [path, body] of Object.entries(bodies)) {
  const handler = async () => {
    if (workNs > 0n) busyFor(workNs);
    return body;
  };
  app.route({ method: ['GET', 'POST'], url: path, handler });
}
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

/** Spins on the clock: CPU spent in the handler, as a real handler's work would be. */
function busyFor(ns: bigint): void {
  const until = process.hrtime.bigint() + ns;
  while (process.hrtime.bigint() < until);
}
