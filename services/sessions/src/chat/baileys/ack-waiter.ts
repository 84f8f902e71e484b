import type { BinaryNode } from '@whiskeysockets/baileys';
import { ChatNetworkError } from '../errors.js';
import type { SentMessage } from '../driver.js';

interface PendingAck {
  resolve: (sent: SentMessage) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Matches the network's `<ack class="message" id=…>` to the send waiting for it. Baileys 7
 * resolves a send as soon as the frame is written and reports no server ack, so a send is
 * only "accepted by the network" once this ack arrives.
 */
export class AckWaiter {
  readonly #pending = new Map<string, PendingAck>();

  constructor(private readonly timeoutMs: number) {}

  get size(): number {
    return this.#pending.size;
  }

  /** Whether a send of `id` still waits for its ack (not acknowledged, failed or past its deadline). */
  has(id: string): boolean {
    return this.#pending.has(id);
  }

  /** Call before the message is written, so an ack that races the write is not missed. */
  expect(id: string): Promise<SentMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new ChatNetworkError(`the network did not acknowledge message ${id} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
    });
  }

  /** Handles one `ack` node of class `message`. */
  onAck(node: BinaryNode): void {
    const id = node.attrs.id;
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (!id || !pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (node.attrs.error) pending.reject(new ChatNetworkError(`the network refused message ${id} (error ${node.attrs.error})`));
    else pending.resolve({ id, timestamp: ackTime(node.attrs.t) });
  }

  fail(id: string, error: Error): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    pending.reject(error);
  }

  failAll(error: Error): void {
    for (const id of [...this.#pending.keys()]) this.fail(id, error);
  }
}

function ackTime(seconds: string | undefined): Date {
  const value = Number(seconds);
  return Number.isFinite(value) && value > 0 ? new Date(value * 1000) : new Date();
}
