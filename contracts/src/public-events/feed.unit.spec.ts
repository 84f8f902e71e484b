import { describe, expect, it } from 'vitest';
import { PublicEventId } from './catalogue.js';
import { publicEventId } from './feed.js';

describe('publicEventId', () => {
  it('is the same for the same fact, a valid evt_ id, and differs by fact and by type', () => {
    const id = publicEventId('3f1c0f2e-8a7b-4c1d-9e2f-0a1b2c3d4e5f', 'message.status');
    expect(publicEventId('3f1c0f2e-8a7b-4c1d-9e2f-0a1b2c3d4e5f', 'message.status')).toBe(id);
    expect(PublicEventId.safeParse(id).success).toBe(true);
    expect(publicEventId('3f1c0f2e-8a7b-4c1d-9e2f-0a1b2c3d4e5f', 'session.status')).not.toBe(id);
    expect(publicEventId('3f1c0f2e-8a7b-4c1d-9e2f-0a1b2c3d4e60', 'message.status')).not.toBe(id);
  });

  it('spreads over the whole alphabet (no fixed characters)', () => {
    const ids = Array.from({ length: 200 }, (_, i) => publicEventId(`e${i}`, 't'));
    const firstChars = new Set(ids.map((id) => id[4]));
    const lastChars = new Set(ids.map((id) => id.at(-1)));
    expect(firstChars.size).toBeGreaterThan(20);
    expect(lastChars.size).toBeGreaterThan(1);
  });
});
