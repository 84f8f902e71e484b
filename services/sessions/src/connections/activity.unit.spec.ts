import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ActivityRecorder } from './activity.js';

const WINDOW = 5_000;
let writes: { sessionId: string; activity: string; at: number }[];
let recorder: ActivityRecorder;

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  writes = [];
  recorder = new ActivityRecorder(async (sessionId, _account, activity) => void writes.push({ sessionId, activity, at: Date.now() }), Date.now, WINDOW);
});
afterEach(() => {
  recorder.stop();
  vi.useRealTimers();
});

describe('coalescing session activity', () => {
  it('writes the first activity at once and folds a burst into one trailing write at the end of the window', () => {
    recorder.touch('ses_a', 'acc', 'message_sent');
    for (let i = 0; i < 100; i++) recorder.touch('ses_a', 'acc', 'message_sent');
    recorder.touch('ses_a', 'acc', 'receipt_received');
    expect(writes).toEqual([{ sessionId: 'ses_a', activity: 'message_sent', at: 0 }]);
    vi.advanceTimersByTime(WINDOW);
    expect(writes).toEqual([
      { sessionId: 'ses_a', activity: 'message_sent', at: 0 },
      { sessionId: 'ses_a', activity: 'receipt_received', at: WINDOW },
    ]);
  });

  it('writes again at once after a quiet window, and keeps sessions apart', () => {
    recorder.touch('ses_a', 'acc', 'message_sent');
    vi.advanceTimersByTime(WINDOW + 1);
    recorder.touch('ses_a', 'acc', 'message_sent');
    recorder.touch('ses_b', 'acc', 'message_sent');
    expect(writes.map((w) => [w.sessionId, w.at])).toEqual([['ses_a', 0], ['ses_a', WINDOW + 1], ['ses_b', WINDOW + 1]]);
  });

  it('drops the trailing write of a forgotten session', () => {
    recorder.touch('ses_a', 'acc', 'message_sent');
    recorder.touch('ses_a', 'acc', 'message_sent');
    recorder.forget('ses_a');
    vi.advanceTimersByTime(WINDOW * 2);
    expect(writes).toHaveLength(1);
  });
});
