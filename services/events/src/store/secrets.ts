import { createHash, randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { SecretCipher } from '@switchboard/service-kit';

/** A new Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function mintWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** What events and logs may carry instead of a secret: 16 hex characters of its SHA-256. */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

/**
 * Webhook secrets sealed with SWITCHBOARD_SECRET_KEY (AES-256-GCM, the row's ids as associated
 * data), so a copied database file reveals no secret without the key.
 */
export class SealedSecrets {
  private readonly insert;
  private readonly select;

  constructor(
    private readonly db: DatabaseSync,
    private readonly cipher: SecretCipher,
  ) {
    this.insert = db.prepare('INSERT OR REPLACE INTO webhook_secrets (webhook_id, fingerprint, sealed) VALUES (?, ?, ?)');
    this.select = db.prepare('SELECT sealed FROM webhook_secrets WHERE webhook_id = ? AND fingerprint = ?');
  }

  /** Stored before the event that names its fingerprint, so no event points at a missing secret. */
  put(webhookId: string, secret: string): string {
    const fingerprint = secretFingerprint(secret);
    this.insert.run(webhookId, fingerprint, this.cipher.seal(Buffer.from(secret), `${webhookId}:${fingerprint}`));
    return fingerprint;
  }

  get(webhookId: string, fingerprint: string): string | undefined {
    const row = this.select.get(webhookId, fingerprint) as { sealed: Uint8Array } | undefined;
    return row ? this.cipher.open(row.sealed, `${webhookId}:${fingerprint}`).toString() : undefined;
  }

  delete(webhookId: string): void {
    this.db.prepare('DELETE FROM webhook_secrets WHERE webhook_id = ?').run(webhookId);
  }
}
