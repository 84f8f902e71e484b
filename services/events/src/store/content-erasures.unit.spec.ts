import { describe, expect, it } from 'vitest';
import type { PublicEvent } from '@switchboard/contracts';
import { erasedCopy } from './content-erasures.js';

const received: PublicEvent = {
  id: 'evt_01JD8Z7A1B2C3D4E5F6G7H8J9K', type: 'message.received', timestamp: '2026-11-21T10:00:01.000Z',
  data: {
    messageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', direction: 'in', sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', from: '15551234567', to: '15557654321',
    type: 'location', location: { latitude: 52.379, longitude: 4.9, name: 'Home' }, quotedMessageId: null, timestamp: '2026-11-21T10:00:00.000Z',
  },
};

describe('recorded public events of an erased account', () => {
  it('keep ids, parties, type and times, and no content field: text reads [erased]', () => {
    expect(erasedCopy(received)).toEqual({ ...received, data: { ...received.data, location: undefined, text: '[erased]', erased: true } });
    expect(JSON.stringify(erasedCopy(received))).not.toContain('Home');
  });

  it('leave events without contents as they are', () => {
    const status: PublicEvent = { id: 'evt_01JD8Z7A1B2C3D4E5F6G7H8J9M', type: 'message.status', timestamp: received.timestamp, data: { messageId: received.data.messageId as string, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', status: 'read', timestamp: received.timestamp, error: null } };
    expect(erasedCopy(status)).toBe(status);
  });
});
