import { describe, expect, it } from 'vitest';
import { subjectMatches } from '../src/subject.js';

describe('subjectMatches (NATS wildcards for the in-process bus)', () => {
  it.each([
    ['sb.v1.quota.reserve', 'sb.v1.quota.reserve', true],
    ['sb.v1.quota.reserve', 'sb.v1.quota.release', false],
    ['sb.v1.evt.session.*', 'sb.v1.evt.session.SessionConnected', true],
    ['sb.v1.evt.session.*', 'sb.v1.evt.session', false],
    ['sb.v1.evt.*.SessionConnected', 'sb.v1.evt.session.SessionConnected', true],
    ['sb.v1.evt.>', 'sb.v1.evt.message.MessageSent', true],
    ['sb.v1.evt.>', 'sb.v1.evt', false],
    ['sb.v1.quota', 'sb.v1.quota.reserve', false],
  ])('%s matches %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});
