import { describe, expect, it } from 'vitest';
import { EXAMPLE_IDS as ID, EXAMPLE_TIME } from '../examples/ids.js';
import { messageEventParser } from '../messaging/events.js';
import { InboundContent } from '../messaging/inbound.js';
import { InboundContentType } from '../messaging/sealed-content.js';
import { MessageContent } from '../messages/content.js';
import { MessageType } from '../messages/status.js';
import { idempotencyKeyHash } from '../common/idempotency.js';
import { quotaEventParser } from '../quota/events.js';
import { sessionEventParser } from '../sessions/events.js';
import { EventMetadata } from './metadata.js';
import { EventParseError } from './parser.js';
import { ALL_EVENTS, EVENT_CATEGORY, domainEventParser, subjectForEvent } from './registry.js';
import { accountStream, messageStream, sessionStream, usageStream } from './streams.js';

const hash = 'a'.repeat(64);

/** One valid v1 event of each type, as a store would return it. */
const STORED = {
  SessionCreated: { sessionId: ID.session, accountId: ID.account, name: null, createdAt: EXAMPLE_TIME },
  QrCodeIssued: { sessionId: ID.session, sequence: 1, fingerprint: '0123456789abcdef', issuedAt: EXAMPLE_TIME, expiresAt: EXAMPLE_TIME },
  SessionConnected: { sessionId: ID.session, phone: '15551234567', connectedAt: EXAMPLE_TIME },
  SessionDisconnected: { sessionId: ID.session, reason: 'logged_out', disconnectedAt: EXAMPLE_TIME },
  SessionTimedOut: { sessionId: ID.session, timedOutAt: EXAMPLE_TIME },
  SessionFailed: { sessionId: ID.session, code: 'BAD_CREDENTIALS', reason: 'credentials could not be decrypted', failedAt: EXAMPLE_TIME },
  SessionDeleted: { sessionId: ID.session, previousStatus: 'connected', loggedOut: true, deletedAt: EXAMPLE_TIME },
  SessionActivityRecorded: { sessionId: ID.session, activity: 'message_sent', at: EXAMPLE_TIME },
  MessageAccepted: {
    messageId: ID.message,
    accountId: ID.account,
    sessionId: ID.session,
    to: '15551234567',
    content: { type: 'media', media: { mediaType: 'image', mimetype: 'image/png', sha256: hash, size: 68 }, caption: 'hi' },
    quotedMessageId: null,
    idempotencyKeyHash: hash,
    usageDay: '2026-11-21',
    acceptedAt: EXAMPLE_TIME,
  },
  MessageSent: { messageId: ID.message, networkMessageId: '3EB0C767D26A1D6F8E2B', sentAt: EXAMPLE_TIME },
  MessageDelivered: { messageId: ID.message, deliveredAt: EXAMPLE_TIME },
  MessageRead: { messageId: ID.message, readAt: EXAMPLE_TIME },
  MessageFailed: { messageId: ID.message, code: 'CHAT_NETWORK_ERROR', message: 'dropped', refundable: true, failedAt: EXAMPLE_TIME },
  MessageQuotaRefunded: { messageId: ID.message, usageDay: '2026-11-21', refundedAt: EXAMPLE_TIME },
  MessageReceived: {
    messageId: ID.message, accountId: ID.account, sessionId: ID.session, networkMessageId: '3EB0AA', from: '15551234567', fromLid: '915551234567',
    to: '15557654321', sentAt: EXAMPLE_TIME, receivedAt: EXAMPLE_TIME, content: { type: 'text', text: 'hi' }, quotedNetworkId: null, quotedMessageId: null,
  },
  MessageReactionReceived: {
    messageId: ID.message, accountId: ID.account, sessionId: ID.session, networkMessageId: '3EB0AB', from: '15551234567', to: '15557654321',
    sentAt: EXAMPLE_TIME, receivedAt: EXAMPLE_TIME, targetNetworkId: '3EB0AA', targetMessageId: null, emoji: '👍',
  },
  AccountOpened: { accountId: ID.account, name: 'Acme', plan: 'free', openedAt: EXAMPLE_TIME },
  PlanChanged: { accountId: ID.account, from: 'free', to: 'basic', changedAt: EXAMPLE_TIME },
  AccountRenamed: { accountId: ID.account, from: 'Acme', to: 'Acme Support', renamedAt: EXAMPLE_TIME },
  AccountClosed: { accountId: ID.account, closedAt: EXAMPLE_TIME },
  ApiKeyIssued: { accountId: ID.account, keyId: ID.key, keyHash: hash, scopes: ['api'], issuedAt: EXAMPLE_TIME },
  ApiKeyRevoked: { accountId: ID.account, keyId: ID.key, revokedAt: EXAMPLE_TIME },
  SessionSlotReserved: { accountId: ID.account, sessionId: ID.session, limit: 1, reservedAt: EXAMPLE_TIME },
  SessionSlotReleased: { accountId: ID.account, sessionId: ID.session, releasedAt: EXAMPLE_TIME },
  DailyQuotaReserved: { accountId: ID.account, day: '2026-11-21', messageId: ID.message, limit: null, reservedAt: EXAMPLE_TIME },
  DailyQuotaRefunded: { accountId: ID.account, day: '2026-11-21', messageId: ID.message, refundedAt: EXAMPLE_TIME },
  WebhookCreated: {
    webhookId: 'wh_01JD8Z9C2D3E4F5G6H7J8K9M0N', accountId: ID.account, url: 'https://example.com/hook', events: ['message.status'],
    description: null, enabled: true, secretFingerprint: '0123456789abcdef', createdAt: EXAMPLE_TIME,
  },
  WebhookUpdated: { webhookId: 'wh_01JD8Z9C2D3E4F5G6H7J8K9M0N', url: 'https://example.com/hook', events: ['session.status'], description: 'x', enabled: false, updatedAt: EXAMPLE_TIME },
  WebhookSecretRotated: {
    webhookId: 'wh_01JD8Z9C2D3E4F5G6H7J8K9M0N', secretFingerprint: 'fedcba9876543210', previousFingerprint: '0123456789abcdef',
    previousValidUntil: EXAMPLE_TIME, rotatedAt: EXAMPLE_TIME,
  },
  WebhookDeleted: { webhookId: 'wh_01JD8Z9C2D3E4F5G6H7J8K9M0N', deletedAt: EXAMPLE_TIME },
  MessageContentsErased: { accountId: ID.account, keyIds: ['dk_01JD8Z5W3X4Y5Z6A7B8C9D0E1F'], erasedAt: EXAMPLE_TIME },
} as const;

/** Events past their first version. */
const VERSION: Record<string, number> = { MessageAccepted: 2 };

const SEALED = { keyId: 'dk_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', sealed: 'AQ'.repeat(30) };
/** The versions written with sealed contents (issue 16), beside the plain-text ones above. */
const SEALED_STORED = {
  'MessageAccepted@3': { ...STORED.MessageAccepted, content: { type: 'media', ...SEALED } },
  'MessageReceived@2': { ...STORED.MessageReceived, content: { type: 'text', ...SEALED } },
} as const;

describe('event parsing by type + version', () => {
  it('has a fixture for every registered event', () => {
    const plain = Object.keys(STORED).map((t) => `${t}@${VERSION[t] ?? 1}`);
    expect(domainEventParser.keys.slice().sort()).toEqual([...plain, ...Object.keys(SEALED_STORED)].sort());
  });

  it.each(Object.entries(SEALED_STORED))('reads %s, its content sealed: only the type stays readable', (key, data) => {
    const [type, version] = key.split('@') as [string, string];
    expect(messageEventParser.parse({ type, version: Number(version), data })).toEqual({ type, version: Number(version), data });
    // A content in plain text has no place in a sealed version, nor a sealed one in a plain version.
    expect(messageEventParser.safeParse({ type, version: Number(version), data: { ...data, content: { type: 'text', text: 'hi' } } }).ok).toBe(false);
    expect(messageEventParser.safeParse({ type, version: Number(version) - 1, data }).ok).toBe(false);
  });

  it('seals every kind of content there is, by its type', () => {
    expect(InboundContentType.options.slice().sort()).toEqual(InboundContent.options.map((o) => o.shape.type.value).sort());
    expect(MessageType.options.slice().sort()).toEqual(MessageContent.options.map((o) => o.shape.type.value).sort());
  });

  it.each(Object.entries(STORED))('reads %s at its current version', (type, data) => {
    const version = VERSION[type] ?? 1;
    expect(domainEventParser.parse({ type, version, data })).toEqual({ type, version, data });
  });

  it('reads MessageAccepted@1 as @2, its raw Idempotency-Key replaced by the key hash', () => {
    const { idempotencyKeyHash: _, ...facts } = STORED.MessageAccepted;
    expect(messageEventParser.parse({ type: 'MessageAccepted', version: 1, data: { ...facts, idempotencyKey: 'k-1' } })).toEqual({
      type: 'MessageAccepted', version: 2, data: { ...facts, idempotencyKeyHash: idempotencyKeyHash('k-1') },
    });
  });

  it('routes each service parser to its own events only', () => {
    expect(sessionEventParser.keys).toHaveLength(8);
    expect(messageEventParser.keys).toHaveLength(12);
    expect(quotaEventParser.keys).toHaveLength(10);
    const result = sessionEventParser.safeParse({ type: 'MessageSent', version: 1, data: STORED.MessageSent });
    expect(result.ok ? null : result.error.reason).toBe('unknown_type');
  });

  it('rejects an unknown version of a known event', () => {
    const result = sessionEventParser.safeParse({ type: 'SessionCreated', version: 2, data: STORED.SessionCreated });
    expect(result.ok).toBe(false);
    expect(result.ok ? null : [result.error.reason, result.error.message]).toEqual([
      'unknown_version',
      'Cannot read event SessionCreated@2: unknown version',
    ]);
  });

  it('throws EventParseError from parse()', () => {
    expect(() => messageEventParser.parse({ type: 'MessageSent', version: 0, data: STORED.MessageSent })).toThrow(EventParseError);
    expect(() => messageEventParser.parse({ type: 'MessageExploded', version: 1, data: {} })).toThrow('unknown type');
  });

  it.each(Object.entries(STORED))('decodes %s as parse reads it', (type, data) => {
    const version = VERSION[type] ?? 1;
    expect(domainEventParser.decode({ type, version, data })).toEqual(domainEventParser.parse({ type, version, data }));
  });

  it('decodes MessageAccepted@1 as @2, as parse does', () => {
    const { idempotencyKeyHash: _, ...facts } = STORED.MessageAccepted;
    const raw = { type: 'MessageAccepted', version: 1, data: { ...facts, idempotencyKey: 'k-1' } };
    expect(messageEventParser.decode(raw)).toEqual(messageEventParser.parse(raw));
  });

  it('decode checks type, version and that data is an object, not the data itself', () => {
    expect(() => sessionEventParser.decode({ type: 'MessageSent', version: 1, data: STORED.MessageSent })).toThrow('unknown type');
    expect(() => sessionEventParser.decode({ type: 'SessionCreated', version: 2, data: STORED.SessionCreated })).toThrow('unknown version');
    for (const data of [null, 'text', [STORED.SessionCreated]]) {
      expect(() => sessionEventParser.decode({ type: 'SessionCreated', version: 1, data })).toThrow('invalid data');
    }
    // What parse refuses, decode hands over as stored: read models trust their own store.
    const odd = { ...STORED.SessionCreated, name: 42 };
    expect(sessionEventParser.safeParse({ type: 'SessionCreated', version: 1, data: odd }).ok).toBe(false);
    expect(sessionEventParser.decode({ type: 'SessionCreated', version: 1, data: odd }).data).toBe(odd);
  });

  it('rejects data that does not match the version schema, with the issue paths', () => {
    const result = messageEventParser.safeParse({ type: 'MessageAccepted', version: 2, data: { ...STORED.MessageAccepted, to: '+1' } });
    expect(result.ok ? [] : [result.error.reason, result.error.issues.map((i) => i.path.join('.'))]).toEqual(['invalid_data', ['data.to']]);
  });

  it('never stores media bytes or raw keys: the schemas only have room for hashes', () => {
    const withBytes = { ...STORED.MessageAccepted, content: { ...STORED.MessageAccepted.content, media: { ...STORED.MessageAccepted.content.media, sha256: 'not-a-hash' } } };
    expect(messageEventParser.safeParse({ type: 'MessageAccepted', version: 2, data: withBytes }).ok).toBe(false);
    const withKey = { ...STORED.ApiKeyIssued, keyHash: 'sbk_secret_value_0123456789' };
    expect(quotaEventParser.safeParse({ type: 'ApiKeyIssued', version: 1, data: withKey }).ok).toBe(false);
  });
});

describe('event subjects and streams', () => {
  it('publishes each event on sb.v1.evt.<category>.<Event>', () => {
    expect(subjectForEvent('SessionConnected')).toBe('sb.v1.evt.session.SessionConnected');
    expect(subjectForEvent('MessageDelivered')).toBe('sb.v1.evt.message.MessageDelivered');
    expect(subjectForEvent('ApiKeyRevoked')).toBe('sb.v1.evt.account.ApiKeyRevoked');
    expect(subjectForEvent('DailyQuotaReserved')).toBe('sb.v1.evt.usage.DailyQuotaReserved');
    expect(Object.keys(EVENT_CATEGORY)).toHaveLength(new Set(ALL_EVENTS.map((e) => e.shape.type.value)).size);
  });

  it('names streams <category>-<id>', () => {
    expect(sessionStream(ID.session)).toBe('session-ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R');
    expect(messageStream(ID.message)).toBe('message-msg_01JD8Z7A1B2C3D4E5F6G7H8J9K');
    expect(accountStream(ID.account)).toBe('account-acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F');
    expect(usageStream(ID.account, '2026-11-21')).toBe('usage-acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F-2026-11-21');
  });

  it('requires the metadata fields, traceparent optional', () => {
    const meta = { accountId: ID.account, correlationId: 'c1', causationId: 'c0', occurredAt: EXAMPLE_TIME };
    expect(EventMetadata.parse(meta)).toEqual(meta);
    expect(EventMetadata.safeParse({ ...meta, traceparent: 'nope' }).success).toBe(false);
    const { causationId: _dropped, ...withoutCausation } = meta;
    expect(EventMetadata.safeParse(withoutCausation).error?.issues.map((i) => i.path.join('.'))).toEqual(['causationId']);
  });
});
