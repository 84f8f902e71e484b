import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { STREAM_CATEGORY, webhookEventParser } from '@switchboard/contracts';
import type { SubscribableEventType, WebhookView } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Projection } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  webhook_id       TEXT PRIMARY KEY,
  account_id       TEXT NOT NULL,
  url              TEXT NOT NULL,
  events           TEXT NOT NULL,
  description      TEXT,
  enabled          INTEGER NOT NULL,
  created_at       TEXT NOT NULL,
  secret_fp        TEXT NOT NULL,
  previous_fp      TEXT,
  previous_until   TEXT,
  deleted          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS webhooks_by_account ON webhooks (account_id, created_at);
`;

/** A webhook as the dispatcher and the queries see it. */
export interface WebhookRecord extends WebhookView {
  accountId: string;
  secretFingerprint: string;
  previous: { fingerprint: string; validUntil: string } | null;
  deleted: boolean;
}

interface Row {
  webhook_id: string;
  account_id: string;
  url: string;
  events: string;
  description: string | null;
  enabled: number;
  created_at: string;
  secret_fp: string;
  previous_fp: string | null;
  previous_until: string | null;
  deleted: number;
}

function record(row: Row): WebhookRecord {
  return {
    webhookId: row.webhook_id,
    accountId: row.account_id,
    url: row.url,
    events: JSON.parse(row.events) as SubscribableEventType[],
    description: row.description,
    enabled: row.enabled === 1,
    createdAt: row.created_at,
    secretFingerprint: row.secret_fp,
    previous: row.previous_fp && row.previous_until ? { fingerprint: row.previous_fp, validUntil: row.previous_until } : null,
    deleted: row.deleted === 1,
  };
}

/** The `webhooks` read model: every webhook's current settings, rebuilt from the webhook streams. */
export class WebhookProjection implements Projection {
  readonly name = 'webhooks-v1';
  readonly category = STREAM_CATEGORY.webhook;

  constructor(private readonly db: DatabaseSync) {
    db.exec(SCHEMA);
  }

  apply(recorded: RecordedEvent): void {
    const event = webhookEventParser.decode(toRawEvent(recorded));
    const d = event.data;
    switch (event.type) {
      case 'WebhookCreated':
        this.db
          .prepare('INSERT OR REPLACE INTO webhooks (webhook_id, account_id, url, events, description, enabled, created_at, secret_fp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(d.webhookId, event.data.accountId, event.data.url, JSON.stringify(event.data.events), event.data.description, event.data.enabled ? 1 : 0, event.data.createdAt, event.data.secretFingerprint);
        return;
      case 'WebhookUpdated':
        this.db
          .prepare('UPDATE webhooks SET url = ?, events = ?, description = ?, enabled = ? WHERE webhook_id = ?')
          .run(event.data.url, JSON.stringify(event.data.events), event.data.description, event.data.enabled ? 1 : 0, d.webhookId);
        return;
      case 'WebhookSecretRotated':
        this.db
          .prepare('UPDATE webhooks SET secret_fp = ?, previous_fp = ?, previous_until = ? WHERE webhook_id = ?')
          .run(event.data.secretFingerprint, event.data.previousFingerprint, event.data.previousValidUntil, d.webhookId);
        return;
      case 'WebhookDeleted':
        this.db.prepare('UPDATE webhooks SET deleted = 1, enabled = 0 WHERE webhook_id = ?').run(d.webhookId);
        return;
    }
  }
}

/** Reads of the webhook list. */
export class WebhookQueries {
  // Prepared once: `list` runs for every page of public events the intake records.
  private readonly byId: StatementSync;
  private readonly byAccount: StatementSync;

  constructor(db: DatabaseSync) {
    this.byId = db.prepare('SELECT * FROM webhooks WHERE webhook_id = ?');
    this.byAccount = db.prepare('SELECT * FROM webhooks WHERE account_id = ? AND deleted = 0 ORDER BY created_at, webhook_id');
  }

  get(webhookId: string): WebhookRecord | undefined {
    const row = this.byId.get(webhookId) as Row | undefined;
    return row ? record(row) : undefined;
  }

  /** An account's live webhooks, oldest first. */
  list(accountId: string): WebhookRecord[] {
    return (this.byAccount.all(accountId) as unknown as Row[]).map(record);
  }

  /** The enabled webhooks of an account that take `type`. */
  subscribers(accountId: string, type: string): WebhookRecord[] {
    return this.list(accountId).filter((w) => w.enabled && (w.events as string[]).includes(type));
  }
}

/** The public view (no fingerprints, no account). */
export function viewOf(webhook: WebhookRecord): WebhookView {
  const { webhookId, url, events, description, enabled, createdAt } = webhook;
  return { webhookId, url, events, description, enabled, createdAt };
}
