import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';

/** The lowest port handed out: above the well-known and most registered service ports. */
const LOWEST_PORT = 20_000;
/** Fewer free ports than this below the ephemeral range (an unusual kernel setting): the kernel's pick. */
const MIN_RANGE = 2_000;

/**
 * Ports handed out by this process: the kernel may give a port it just got back again, and two
 * parts told the same port collide (seen: quota and sessions both given one metrics port).
 */
const handedOut = new Set<number>();
/** The start of the kernel's ephemeral range, read once per process. */
let firstEphemeral: number | undefined;

/**
 * A loopback port nobody listens on (checked just now), never one handed out before in this
 * process. Drawn at random BELOW the kernel's ephemeral range: ports in that range are what
 * `listen(0)` in other test processes and every outgoing connection's local end are given, and the
 * kernel readily hands a port just released to the next asker, so a port found with `listen(0)`
 * and released could be taken before its user bound it (seen in CI: EADDRINUSE for an emulator's
 * and a metrics port). Below the range, only another process's own draw can meet it.
 */
export async function closedLoopbackPort(): Promise<number> {
  firstEphemeral ??= ephemeralPortRange()[0];
  for (;;) {
    const port = firstEphemeral - LOWEST_PORT >= MIN_RANGE ? randomInt(LOWEST_PORT, firstEphemeral) : await kernelPort();
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
}

/** `/proc/sys/net/ipv4/ip_local_port_range`; Linux's default where it cannot be read. */
export function ephemeralPortRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!];
  } catch {
    // Not Linux: its default range is as good a guess as any (macOS starts higher).
  }
  return [32_768, 60_999];
}

function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function kernelPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}
