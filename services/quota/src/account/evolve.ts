import type { AccountEvent, SessionId } from '@switchboard/contracts';
import type { Account, ExistingAccount, SlotStatus } from './state.js';

/**
 * Folds one account-stream event into the account. No I/O, no clock; the slot map is handed over,
 * not copied (a state is never used again once evolved; see usage/evolve.ts for why).
 */
export function evolve(state: Account, event: AccountEvent): Account {
  if (event.type === 'AccountOpened') {
    const { accountId, name, plan } = event.data;
    return { status: 'open', accountId, name, plan, keys: new Map(), slots: new Map(), slotsHeld: 0 };
  }
  // Any other event on a stream that was never opened is a corrupt stream: keep it visible.
  if (state.status === 'not_opened') throw new Error(`${event.type} on an account that was never opened`);
  if (event.type === 'AccountClosed') return { ...state, status: 'closed', closedAt: event.data.closedAt };
  return evolveExisting(state, event);
}

/** Open or closed alike: a closed account keeps folding the slot releases of its deleted sessions. */
function evolveExisting<S extends ExistingAccount>(state: S, event: Exclude<AccountEvent, { type: 'AccountOpened' | 'AccountClosed' }>): S {
  switch (event.type) {
    case 'PlanChanged':
      return { ...state, plan: event.data.to };
    case 'AccountRenamed':
      return { ...state, name: event.data.to };
    case 'ApiKeyIssued':
      return { ...state, keys: new Map(state.keys).set(event.data.keyId, { scopes: event.data.scopes, revokedAt: null }) };
    case 'ApiKeyRevoked': {
      const key = state.keys.get(event.data.keyId);
      if (!key) return state;
      return { ...state, keys: new Map(state.keys).set(event.data.keyId, { ...key, revokedAt: event.data.revokedAt }) };
    }
    case 'SessionSlotReserved':
      return withSlot(state, event.data.sessionId, 'held');
    case 'SessionSlotReleased':
      return withSlot(state, event.data.sessionId, 'released');
  }
}

function withSlot<S extends ExistingAccount>(state: S, sessionId: SessionId, status: SlotStatus): S {
  const before = state.slots.get(sessionId);
  const delta = (status === 'held' ? 1 : 0) - (before === 'held' ? 1 : 0);
  const slots = (state.slots as Map<SessionId, SlotStatus>).set(sessionId, status);
  return { ...state, slots, slotsHeld: state.slotsHeld + delta };
}
