import { BaseRpcContext } from '@nestjs/microservices';
import type { BusHeaders, BusMessage } from '../bus.js';

/** What `@Ctx()` gives a handler bound by `BusTransport`: the subject and headers. */
export class BusContext extends BaseRpcContext<[BusMessage]> {
  constructor(message: BusMessage) {
    super([message]);
  }

  /** The message itself (its `data`, and whether it came from this process: see `parseRequest`). */
  getMessage(): BusMessage {
    return this.args[0];
  }

  getSubject(): string {
    return this.args[0].subject;
  }

  getHeaders(): BusHeaders {
    return this.args[0].headers;
  }

  /** Shorthand for the `account-id` header set by the gateway. */
  getAccountId(): string | undefined {
    return this.args[0].headers['account-id'];
  }
}
