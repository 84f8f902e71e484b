import { expect } from 'vitest';

/** A decider as the given/when/then specs see it (a clock or other context is bound in `decide`). */
export interface Decider<C, S, E> {
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  initial: S;
}

/**
 * STYLE.md's specs: `given(history).when(command).then(events)`, `.thenThrows(ErrorClass, shape?)`
 * (a domain error, optionally with its code and details), `.thenState(match)` (the state after
 * the decided events are folded in too).
 */
export function specFor<C, S, E>(decider: Decider<C, S, E>) {
  return (history: E[]) => ({
    when: (command: C) => {
      const before = history.reduce(decider.evolve, decider.initial);
      const run = () => decider.decide(command, before);
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (error: abstract new (...args: never[]) => Error, shape?: { code?: string; details?: unknown }) => {
          expect(run).toThrow(error);
          if (shape) expect(caught(run)).toMatchObject(shape);
        },
        thenState: (expected: Partial<Record<string, unknown>>) => expect(run().reduce(decider.evolve, before)).toMatchObject(expected),
      };
    },
  });
}

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
