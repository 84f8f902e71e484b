import { isIP } from 'node:net';

/**
 * True only for literal loopback addresses (127.0.0.0/8, ::1, ::ffff:127.x). A name such as
 * `localhost` is refused: the emulator's test root key is trusted process-wide once accepted,
 * and a name is whatever the resolver answers at connection time.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) === 4) return bare.split('.')[0] === '127';
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare);
  return false;
}
