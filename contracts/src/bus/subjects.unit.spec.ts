import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EXAMPLE_IDS as ID } from '../examples/ids.js';
import { HTTP_EXAMPLES } from '../examples/http.js';
import { MessagingSubjects } from '../messaging/subjects.js';
import { QuotaSubjects } from '../quota/subjects.js';
import { SessionsSubjects } from '../sessions/subjects.js';
import { BUS_SUBJECTS } from './registry.js';
import { busReply } from './reply.js';
import type { SubjectContract } from './subject.js';

function isContract(value: unknown): value is SubjectContract {
  return typeof value === 'object' && value !== null && 'subject' in value && 'request' in value;
}

function flatten(registry: object): SubjectContract[] {
  return Object.values(registry).flatMap((v: unknown) => (isContract(v) ? [v] : flatten(v as object)));
}

const all = flatten(BUS_SUBJECTS);

describe('bus subjects', () => {
  it('lists every request/reply subject', () => {
    expect(all.map((c) => c.subject)).toEqual([
      'sb.v1.sessions.create',
      'sb.v1.sessions.get',
      'sb.v1.sessions.list',
      'sb.v1.sessions.delete',
      'sb.v1.sessions.qr',
      'sb.v1.sessions.send',
      'sb.v1.sessions.deleteAll',
      'sb.v1.sessions.contact',
      'sb.v1.messaging.sendText',
      'sb.v1.messaging.sendMedia',
      'sb.v1.messaging.sendLocation',
      'sb.v1.messaging.sendButtons',
      'sb.v1.messaging.sendPoll',
      'sb.v1.messaging.get',
      'sb.v1.messaging.recordInbound',
      'sb.v1.messaging.history',
      'sb.v1.messaging.media',
      'sb.v1.messaging.recordReceipts',
      'sb.v1.messaging.sentContent',
      'sb.v1.messaging.eraseContents',
      'sb.v1.quota.authenticate',
      'sb.v1.quota.reserveSession',
      'sb.v1.quota.releaseSession',
      'sb.v1.quota.reserveDaily',
      'sb.v1.quota.refundDaily',
      'sb.v1.quota.accounts.create',
      'sb.v1.quota.accounts.get',
      'sb.v1.quota.accounts.list',
      'sb.v1.quota.accounts.update',
      'sb.v1.quota.accounts.close',
      'sb.v1.quota.keys.create',
      'sb.v1.quota.keys.list',
      'sb.v1.quota.keys.revoke',
      'sb.v1.events.createWebhook',
      'sb.v1.events.listWebhooks',
      'sb.v1.events.getWebhook',
      'sb.v1.events.updateWebhook',
      'sb.v1.events.deleteWebhook',
      'sb.v1.events.rotateSecret',
      'sb.v1.events.listDeliveries',
      'sb.v1.events.replay',
      'sb.v1.events.test',
      'sb.v1.events.readStream',
      'sb.v1.events.eraseContents',
    ]);
  });

  it('names each subject after its service and is unique', () => {
    for (const [service, registry] of Object.entries(BUS_SUBJECTS)) {
      for (const { subject } of flatten(registry)) expect(subject.startsWith(`sb.v1.${service}.`)).toBe(true);
    }
    expect(new Set(all.map((c) => c.subject)).size).toBe(all.length);
  });

  it('requires accountId on every request that acts within an account', () => {
    const accountless = ['sb.v1.quota.authenticate', 'sb.v1.quota.accounts.create', 'sb.v1.quota.accounts.list', 'sb.v1.quota.keys.revoke'];
    const missing = all
      .filter((c) => !accountless.includes(c.subject))
      .filter((c) => {
        const issues = c.request.safeParse({}).error?.issues ?? [];
        return !issues.some((i) => i.path.join('.') === 'accountId');
      })
      .map((c) => c.subject);
    expect(missing).toEqual([]);
  });

  it('carries the validated HTTP body in send commands, refinements included', () => {
    const ok = MessagingSubjects.sendButtons.request.safeParse({ accountId: ID.account, body: HTTP_EXAMPLES.sendButtonsBody });
    expect(ok.success).toBe(true);
    const dup = { ...HTTP_EXAMPLES.sendButtonsBody, buttons: [{ id: 'a', text: 'A' }, { id: 'a', text: 'B' }] };
    const bad = MessagingSubjects.sendButtons.request.safeParse({ accountId: ID.account, body: dup });
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['body.buttons.1.id']);
  });

  it('takes receipts in one call only of the account the call is for', () => {
    const receipt = (accountId: string) => ({ accountId, sessionId: ID.session, networkMessageId: '3EB0AB', receipt: 'read', at: '2026-01-01T00:00:00.000Z' });
    const other = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E2G';
    expect(MessagingSubjects.recordReceipts.request.safeParse({ accountId: ID.account, receipts: [receipt(ID.account)] }).success).toBe(true);
    const mixed = MessagingSubjects.recordReceipts.request.safeParse({ accountId: ID.account, receipts: [receipt(ID.account), receipt(other)] });
    expect(mixed.error?.issues.map((i) => i.path.join('.'))).toEqual(['receipts']);
    expect(MessagingSubjects.recordReceipts.request.safeParse({ accountId: ID.account, receipts: [] }).success).toBe(false);
  });

  it('tolerates unknown keys in bus requests (rolling upgrades) by stripping them', () => {
    const parsed = SessionsSubjects.get.request.parse({ accountId: ID.account, sessionId: ID.session, addedLater: 1 });
    expect(parsed).toEqual({ accountId: ID.account, sessionId: ID.session });
  });

  it('requires media bytes exactly for media content on sessions.send', () => {
    const base = { accountId: ID.account, sessionId: ID.session, messageId: ID.message, to: '15551234567' };
    const text = { ...base, content: { type: 'text', text: 'hi' } };
    expect(SessionsSubjects.send.request.safeParse(text).success).toBe(true);
    const withBytes = { ...text, media: { kind: 'inline', base64: 'aGk=' } };
    expect(SessionsSubjects.send.request.safeParse(withBytes).error?.issues.map((i) => i.path.join('.'))).toEqual(['media']);
  });

  it('wraps replies in the ok/error envelope', () => {
    const Reply = busReply(SessionsSubjects.qr.reply);
    expect(Reply.parse({ ok: true, data: HTTP_EXAMPLES.sessionQrResponse.data })).toEqual({ ok: true, data: HTTP_EXAMPLES.sessionQrResponse.data });
    expect(Reply.safeParse({ ok: true, data: {} }).success).toBe(false);
    expect(Reply.parse({ ok: false, error: { code: 'SESSION_NOT_PENDING', message: 'x' } })).toMatchObject({ ok: false });
  });

  it('keeps raw API keys off the bus: authenticate takes a SHA-256 only', () => {
    expect(QuotaSubjects.authenticate.request.safeParse({ keyHash: 'sbk_abc' }).success).toBe(false);
    expect(z.object({ keyHash: z.string() }).parse(QuotaSubjects.authenticate.request.parse({ keyHash: 'f'.repeat(64) }))).toEqual({ keyHash: 'f'.repeat(64) });
  });
});
