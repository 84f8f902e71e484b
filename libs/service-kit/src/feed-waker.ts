import type { Bus } from '@switchboard/bus';

/**
 * A fire-and-forget wake-up on `subject` after appends, coalesced to at most one per turn of the
 * event loop (a burst of appends wakes the reader once). Lost wake-ups only delay the reader,
 * which also polls, so a failed publish is reported and otherwise ignored.
 */
export function feedWaker(bus: Bus, subject: string, onError: (error: unknown) => void): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (bus.isConnected()) bus.publish(subject, {}).catch(onError);
    });
  };
}
