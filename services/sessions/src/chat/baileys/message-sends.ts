import type { BinaryNode, WASocket } from '@whiskeysockets/baileys';
import type { SentMessage } from '../driver.js';
import { AckWaiter } from './ack-waiter.js';

/** Writes one message on a socket: encrypted anew each time, under the same id. */
export type MessageWrite = (socket: WASocket) => Promise<void>;

/**
 * The sends of one connection. Each resolves on the network's ack or fails at its deadline,
 * counted from the call. A message written to a socket that is then lost (dropped, or silent
 * until the keepalive gave up) is written again on the next one, under the same id, until its
 * deadline: a frame written into a dead connection never reached the network, and one that did is
 * shown once by the recipient's phone (one message per id).
 */
export class MessageSends {
  readonly #acks: AckWaiter;
  /** Written and not acknowledged yet: what to write again on the next socket. */
  readonly #written = new Map<string, MessageWrite>();

  constructor(ackTimeoutMs: number) {
    this.#acks = new AckWaiter(ackTimeoutMs);
  }

  /** Sends waiting for their ack. */
  get pending(): number {
    return this.#acks.size;
  }

  /**
   * Sends message `id` on `socket`. `prepare` (the recipient lookup) runs inside the deadline, and
   * nothing is written once it passed; `failure` says what a failed write is to the caller.
   */
  send(id: string, socket: WASocket, prepare: () => Promise<MessageWrite>, failure: (error: unknown) => Error): Promise<SentMessage> {
    const acknowledged = this.#acks.expect(id);
    // The deadline can pass while a lookup or a large upload is still under way: that rejection
    // is the caller's (returned below), not an unhandled one that would end the process.
    acknowledged.catch(() => undefined);
    void this.#writeFirst(id, socket, acknowledged, prepare, failure);
    return acknowledged;
  }

  /** Handles one `ack` node of class `message`. */
  onAck(node: BinaryNode): void {
    this.#acks.onAck(node);
  }

  /** Writes every message still unacknowledged again on `socket` (the one after a lost one). */
  rewriteOn(socket: WASocket, failure: (error: unknown) => Error): void {
    for (const [id, write] of this.#written) write(socket).catch((error: unknown) => this.#acks.fail(id, failure(error)));
  }

  failAll(error: Error): void {
    this.#acks.failAll(error);
  }

  async #writeFirst(id: string, socket: WASocket, acknowledged: Promise<SentMessage>, prepare: () => Promise<MessageWrite>, failure: (error: unknown) => Error): Promise<void> {
    let write: MessageWrite;
    try {
      write = await prepare();
    } catch (error) {
      return this.#acks.fail(id, error instanceof Error ? error : failure(error));
    }
    // Given up on meanwhile (the deadline, a stop): nothing goes out after the caller was answered.
    if (!this.#acks.has(id)) return;
    try {
      await write(socket);
    } catch (error) {
      return this.#acks.fail(id, failure(error));
    }
    this.#written.set(id, write);
    const forget = () => this.#written.delete(id);
    acknowledged.then(forget, forget);
  }
}
