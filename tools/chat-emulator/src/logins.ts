/**
 * Client connections logged in per linked device: how many now, and the most at once. The network
 * replaces an older connection only after a newer one logged in, so two at once means two clients
 * held the same device's credentials at the same time (what a multi-replica sessions service must
 * never do). Kept in memory for the emulator process's life.
 */
export class Logins {
  private readonly live = new Map<string, Set<object>>();
  private readonly peaks = new Map<string, number>();

  /** `connection` logged in as the device of `phone`. */
  loggedIn(phone: string, connection: object): void {
    const live = this.live.get(phone) ?? new Set<object>();
    live.add(connection);
    this.live.set(phone, live);
    this.peaks.set(phone, Math.max(this.peak(phone), live.size));
  }

  /** A logged-in connection ended, for whatever reason; ending it again changes nothing. */
  ended(phone: string, connection: object): void {
    const live = this.live.get(phone);
    if (!live?.delete(connection)) return;
    if (live.size === 0) this.live.delete(phone);
  }

  /** A device was (re)linked to `phone`: its most-at-once counts from now on. */
  linked(phone: string): void {
    this.peaks.set(phone, this.count(phone));
  }

  count(phone: string): number {
    return this.live.get(phone)?.size ?? 0;
  }

  peak(phone: string): number {
    return this.peaks.get(phone) ?? 0;
  }
}
