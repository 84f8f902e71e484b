import { describe, expect, it } from 'vitest';
import { networkMessageIdFor } from './network-message-id.js';

describe('networkMessageIdFor', () => {
  it('gives the same WhatsApp-shaped id for the same message, and another for another message', () => {
    const id = networkMessageIdFor('msg_01JD0000000000000000000000');
    expect(id).toMatch(/^3EB0[0-9A-F]{20}$/);
    expect(networkMessageIdFor('msg_01JD0000000000000000000000')).toBe(id);
    expect(networkMessageIdFor('msg_01JD0000000000000000000001')).not.toBe(id);
  });
});
