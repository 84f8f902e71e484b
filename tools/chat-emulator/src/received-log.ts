import type { ReceivedMessage } from './model.js';

/** A copy of a message as it arrives at a phone, before the phone compares it with what it has. */
export type ArrivedMessage = Omit<ReceivedMessage, 'repeats'>;

const sameMessage = (a: Pick<ReceivedMessage, 'id' | 'from'>, b: Pick<ReceivedMessage, 'id' | 'from'>): boolean =>
  a.id === b.id && a.from === b.from;

/**
 * Files a copy into a phone's log (oldest first) as a WhatsApp client does: a message id it
 * already shows from that sender is not shown again, only its `repeats` grows (the log keeps the
 * first copy). Returns the entry that now stands for the message.
 */
export function fileArrival(log: ReceivedMessage[], arrived: ArrivedMessage): ReceivedMessage {
  const earlier = log.findLast((entry) => sameMessage(entry, arrived));
  if (earlier) {
    earlier.repeats += 1;
    return earlier;
  }
  const entry = { ...arrived, repeats: 0 };
  log.push(entry);
  return entry;
}

/**
 * The log from its persisted lines, oldest first: a repeat is persisted as a later line of the same
 * message with the grown count, which replaces the earlier line's count in place. Lines written
 * before `repeats` existed count none.
 */
export function logFromLines(lines: readonly ReceivedMessage[]): ReceivedMessage[] {
  const log: ReceivedMessage[] = [];
  for (const line of lines) {
    const earlier = log.findLast((entry) => sameMessage(entry, line));
    if (earlier) earlier.repeats = Math.max(earlier.repeats, line.repeats ?? 0);
    else log.push({ ...line, repeats: line.repeats ?? 0 });
  }
  return log;
}
