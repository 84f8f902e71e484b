import { Server } from '@nestjs/microservices';
import type { CustomTransportStrategy, MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { Bus, BusMessage, BusSubscription } from '../bus.js';
import { BusContext } from './bus-context.js';

export interface BusTransportOptions {
  /**
   * Queue group of this service's `@MessagePattern` handlers (its name: `quota`), so replicas
   * share requests. `@EventPattern` handlers get plain subscriptions (every replica sees every
   * event) unless the decorator says `{ queue: '…' }` in its extras.
   */
  queue: string;
}

/**
 * Nest's custom transport over our `Bus`: the same `@MessagePattern` / `@EventPattern`
 * handlers run on the embedded `InProcessBus` and on `NatsBus`. Patterns are subjects.
 * The bus belongs to the caller (embedded mode shares one between services), so `close()`
 * removes this service's subscriptions and leaves the bus open.
 */
export class BusTransport extends Server implements CustomTransportStrategy {
  private readonly subscriptions: BusSubscription[] = [];

  constructor(private readonly bus: Bus, private readonly options: BusTransportOptions) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const [subject, handler] of this.messageHandlers) {
        const queue = (handler.extras?.['queue'] as string | undefined) ?? (handler.isEventHandler ? undefined : this.options.queue);
        const subscription = await this.bus.subscribe(subject, (message) => this.invoke(handler, message), { queue });
        this.subscriptions.push(subscription);
      }
      this._status$.next('connected');
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    const subscriptions = this.subscriptions.splice(0);
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    this._status$.next('disconnected');
  }

  /** The bus itself: `app.unwrap<Bus>()`. */
  unwrap<T>(): T {
    return this.bus as T;
  }

  /** Connection events are not re-emitted here; read `bus.health()` instead. */
  on(): never {
    throw new Error('BusTransport emits no events; use Bus.health() / Bus.isConnected()');
  }

  /**
   * Runs a Nest handler (through its pipes, guards, interceptors and filters) and settles its
   * result, which may be a value, a promise or an observable (its last value is the reply).
   */
  private async invoke(handler: MessageHandler, message: BusMessage): Promise<unknown> {
    const result: unknown = await handler(message.data, new BusContext(message));
    // A plain value (what our handlers return) needs no observable around it: one per request was garbage.
    return isObservable(result) ? lastValueFrom(result, { defaultValue: undefined }) : result;
  }
}
