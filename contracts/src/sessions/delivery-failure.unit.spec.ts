import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error.js';
import { isQueued, notSentError, queuedError, reachedNetwork } from './commands.js';

describe('reachedNetwork: did a failed sessions.send reach the chat network', () => {
  it('says no for refusals before the network and for a send that was not written', () => {
    for (const code of ['SESSION_NOT_CONNECTED', 'RECIPIENT_NOT_ON_CHAT_NETWORK', 'MEDIA_TOO_LARGE', 'VALIDATION_ERROR'] as const) {
      expect(reachedNetwork(new ApiError(code))).toBe(false);
    }
    expect(reachedNetwork(notSentError('reconnecting'))).toBe(false);
  });

  it('says yes only when sessions says so, and does not know otherwise', () => {
    expect(reachedNetwork(new ApiError('CHAT_NETWORK_ERROR', undefined, { reachedNetwork: true }))).toBe(true);
    expect(reachedNetwork(new ApiError('CHAT_NETWORK_ERROR'))).toBeUndefined();
    // An untyped flag (a string, an older build's shape) is not taken as an answer.
    expect(reachedNetwork(new ApiError('CHAT_NETWORK_ERROR', undefined, { reachedNetwork: 'no' }))).toBeUndefined();
    expect(reachedNetwork(new ApiError('UPSTREAM_TIMEOUT'))).toBeUndefined();
    expect(reachedNetwork(new ApiError('INTERNAL_ERROR'))).toBeUndefined();
  });
});

describe('isQueued: a send still waiting its turn under pacing', () => {
  it('is a send that did not reach the network yet, told apart from other failures', () => {
    expect(isQueued(queuedError())).toBe(true);
    expect(reachedNetwork(queuedError())).toBe(false);
    expect(isQueued(notSentError('reconnecting'))).toBe(false);
    expect(isQueued(new ApiError('CHAT_NETWORK_ERROR', undefined, { reachedNetwork: false, queued: 'yes' }))).toBe(false);
    expect(isQueued(new ApiError('SESSION_NOT_CONNECTED', undefined, { reachedNetwork: false, queued: true }))).toBe(false);
  });
});
