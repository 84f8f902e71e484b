import type { ChatDriver, ChatDriverEventMap } from '../driver.js';

/** Resolves with the first `event` whose payload satisfies `match`, or rejects after `timeoutMs`. */
export function nextEvent<E extends keyof ChatDriverEventMap>(
  driver: ChatDriver,
  event: E,
  match: (payload: ChatDriverEventMap[E][0]) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<ChatDriverEventMap[E][0]> {
  return new Promise((resolve, reject) => {
    const listener = ((payload: ChatDriverEventMap[E][0]) => {
      if (!match(payload)) return;
      clearTimeout(timer);
      driver.off(event, listener as never);
      resolve(payload);
    }) as never;
    const timer = setTimeout(() => {
      driver.off(event, listener);
      reject(new Error(`no ${event} event within ${timeoutMs} ms`));
    }, timeoutMs);
    driver.on(event, listener);
  });
}
