import type { MessageEvent } from '@switchboard/contracts';
import type { MessageFact } from '../contents/opened-content.js';

/** An account's message contents as a whole (stream `message-acc_…`): never erased, or when last and which keys. */
export type AccountContents =
  | { status: 'never_erased' }
  | { status: 'erased'; erasedAt: string; keyIds: readonly string[] };

export const NEVER_ERASED: AccountContents = { status: 'never_erased' };

/** Erase the account's message contents; `liveKeyIds`: its data keys the store holds now. */
export interface EraseContents {
  type: 'EraseContents';
  accountId: string;
  liveKeyIds: readonly string[];
  now: Date;
}

/**
 * The rule of an erasure: recorded when there is something to erase (a key not named by the last
 * erasure) or when the account was never erased (contents recorded in plain text before sealing
 * are cleared then). A repeat, or a retry after a crash between the fact and the keys' destruction,
 * records nothing: the keys it names are destroyed again by whoever meets the fact.
 */
export function decideErasure(command: EraseContents, state: AccountContents): MessageEvent[] {
  if (state.status === 'erased' && command.liveKeyIds.every((keyId) => state.keyIds.includes(keyId))) return [];
  return [{
    type: 'MessageContentsErased',
    version: 1,
    data: { accountId: command.accountId, keyIds: [...command.liveKeyIds], erasedAt: command.now.toISOString() },
  }];
}

export function evolveErasure(state: AccountContents, event: MessageFact): AccountContents {
  return event.type === 'MessageContentsErased' ? { status: 'erased', erasedAt: event.data.erasedAt, keyIds: event.data.keyIds } : state;
}
