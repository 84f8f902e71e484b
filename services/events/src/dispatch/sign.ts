import type { Webhook } from 'standardwebhooks';
import { WEBHOOK_USER_AGENT } from '@switchboard/contracts';

/**
 * The Standard Webhooks headers of one attempt. Every signer (one per secret) signs (the current one
 * and, for 24 h after a rotation, the previous one): a receiver accepts the delivery if any of
 * the space-separated signatures verifies with the secret it knows.
 */
export function webhookHeaders(eventId: string, body: string, signers: readonly Webhook[], now: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signers.map((signer) => signer.sign(eventId, now, body)).join(' '),
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
  };
}
