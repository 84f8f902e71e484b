import { createHash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `count` Crockford base32 characters of `value`, most significant first. */
function base32(value: bigint, count: number): string {
  let out = '';
  for (let i = count - 1; i >= 0; i--) out += CROCKFORD[Number((value >> BigInt(i * 5)) & 31n)];
  return out;
}

/**
 * The id of a received message: `msg_` + a ULID whose time part is the message's network
 * timestamp and whose random part is the first 80 bits of SHA-256(sessionId, network id). The same
 * message delivered twice gets the same id (its stream is written once); ids still sort by time.
 */
export function inboundMessageId(sessionId: string, networkMessageId: string, sentAtMs: number): string {
  const digest = createHash('sha256').update(`${sessionId}\u0000${networkMessageId}`).digest();
  const random = BigInt(`0x${digest.subarray(0, 10).toString('hex')}`);
  const time = BigInt(Math.max(0, Math.min(Math.floor(sentAtMs), 2 ** 48 - 1)));
  return `msg_${base32(time, 10)}${base32(random, 16)}`;
}
