import type { AccountId, MessageId, SessionId, WebhookId } from '../common/ids.js';
import type { UtcDay } from '../common/time.js';
import { SUBJECT_PREFIX } from '../bus/subject.js';

/** Stream categories: one stream per aggregate instance, `<category>-<id>`. */
export const STREAM_CATEGORY = {
  session: 'session',
  message: 'message',
  account: 'account',
  usage: 'usage',
  webhook: 'webhook',
} as const;
export type StreamCategory = (typeof STREAM_CATEGORY)[keyof typeof STREAM_CATEGORY];

export const sessionStream = (id: SessionId): string => `session-${id}`;
export const messageStream = (id: MessageId): string => `message-${id}`;
/** An account's message contents as a whole (their erasures): in the message category, so read models see it in order. */
export const accountContentsStream = (id: AccountId): string => `message-${id}`;
export const accountStream = (id: AccountId): string => `account-${id}`;
export const webhookStream = (id: WebhookId): string => `webhook-${id}`;
/** Daily usage counter of one account on one UTC day. */
export const usageStream = (id: AccountId, day: UtcDay): string => `usage-${id}-${day}`;

/** Subject a stored event is published on: `sb.v1.evt.<category>.<Event>`. */
export function eventSubject(category: StreamCategory, type: string): string {
  return `${SUBJECT_PREFIX}.evt.${category}.${type}`;
}

/** Wildcard for every event of a category (NATS `>` matches the rest of the subject). */
export function eventCategoryWildcard(category: StreamCategory): string {
  return `${SUBJECT_PREFIX}.evt.${category}.>`;
}
