import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/**
 * `bare-fastify.js` in a process of its own, answering each path of `bodies` (GET or POST) with
 * that body, its handler burning `workUs` of CPU per request first: what a bench sets
 * Switchboard's HTTP answers beside.
 */
export async function startBareFastify(bodies: Record<string, unknown>, workUs = 0) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bare-fastify.js', import.meta.url))], {
    env: { ...process.env, BARE_FASTIFY_BODIES: JSON.stringify(bodies), BARE_FASTIFY_WORK_US: String(workUs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const { port } = JSON.parse(line.toString()) as { port: number };
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}
