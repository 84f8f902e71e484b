import { expect } from 'vitest';

/** A decider as the given/when/then specs see it. */
export interface Decider<C, S, E> {
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  initial: S;
}

/** `given(history).when(command).then(events)` / `.thenThrows(ErrorClass)` / `.thenState(match)`. */
export function specFor<C, S, E>(decider: Decider<C, S, E>) {
  return (history: E[]) => ({
    when: (command: C) => {
      const before = history.reduce(decider.evolve, decider.initial);
      const run = () => decider.decide(command, before);
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (error: abstract new (...args: never[]) => Error) => expect(run).toThrow(error),
        /** The state after folding the decided events too. */
        thenState: (expected: Partial<Record<string, unknown>>) => expect(run().reduce(decider.evolve, before)).toMatchObject(expected),
      };
    },
  });
}
