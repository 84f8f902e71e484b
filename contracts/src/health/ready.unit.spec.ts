import { describe, expect, it } from 'vitest';
import { BACKEND_SERVICES, ReadySubjects, readySubject } from './ready.js';

describe('readiness subjects', () => {
  it('names one request subject per service, sb.v1.<service>.ready', () => {
    expect(BACKEND_SERVICES.map((service) => ReadySubjects[service].subject)).toEqual(['sb.v1.sessions.ready', 'sb.v1.messaging.ready', 'sb.v1.quota.ready', 'sb.v1.events.ready']);
    expect(readySubject('webhooks').subject).toBe('sb.v1.webhooks.ready');
  });

  it('takes an empty request and a reply naming the service, its verdict and its checks', () => {
    const { request, reply } = ReadySubjects.quota;
    expect(request.parse({})).toEqual({});
    const answer = { service: 'quota', ready: false, details: { readModels: { ok: false, detail: '12 events behind' }, eventStore: { ok: true } } };
    expect(reply.parse(answer)).toEqual(answer);
    expect(reply.safeParse({ service: 'quota', ready: 'yes', details: {} }).success).toBe(false);
    expect(reply.safeParse({ service: 'quota', ready: true }).success).toBe(false);
  });
});
