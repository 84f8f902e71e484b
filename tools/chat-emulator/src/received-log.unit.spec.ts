import { describe, expect, it } from 'vitest';
import type { ReceivedMessage } from './model.js';
import { fileArrival, logFromLines } from './received-log.js';

const copy = (id: string, from: string, text: string, receivedAt = '2026-01-01T00:00:00.000Z') => ({ id, from, type: 'text' as const, text, receivedAt });

describe("a phone's log of received messages", () => {
  it('shows a repeated message id once, keeps the first copy and counts the repeats', () => {
    const log: ReceivedMessage[] = [];
    fileArrival(log, copy('3EB0A', '15550001111', 'first', '2026-01-01T00:00:00.000Z'));
    fileArrival(log, copy('3EB0B', '15550001111', 'second'));
    const again = fileArrival(log, copy('3EB0A', '15550001111', 'first', '2026-01-01T00:00:15.000Z'));
    fileArrival(log, copy('3EB0A', '15550001111', 'first'));
    expect(log.map((m) => [m.text, m.repeats])).toEqual([['first', 2], ['second', 0]]);
    expect(again).toMatchObject({ receivedAt: '2026-01-01T00:00:00.000Z', repeats: 2 });
  });

  it('tells apart the same id from two senders', () => {
    const log: ReceivedMessage[] = [];
    fileArrival(log, copy('3EB0A', '15550001111', 'from one'));
    fileArrival(log, copy('3EB0A', '15550002222', 'from two'));
    expect(log.map((m) => [m.text, m.repeats])).toEqual([['from one', 0], ['from two', 0]]);
  });

  it('reads persisted lines back with the latest count of each message, in first-arrival order', () => {
    const lines: ReceivedMessage[] = [
      { ...copy('3EB0A', '15550001111', 'first'), repeats: 0 },
      { ...copy('3EB0B', '15550001111', 'second'), repeats: 0 },
      { ...copy('3EB0A', '15550001111', 'first'), repeats: 1 },
      // A line written before `repeats` existed.
      { ...copy('3EB0C', '15550001111', 'older format') } as ReceivedMessage,
    ];
    expect(logFromLines(lines).map((m) => [m.text, m.repeats])).toEqual([['first', 1], ['second', 0], ['older format', 0]]);
  });
});
