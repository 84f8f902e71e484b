import { expect } from 'vitest';

/** A decider as the given/when/then specs see it. */
export interface Decider<C, S, E> {
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  initial: S;
}

/** `given(history).when(command).then(events)` / `.thenThrows(ErrorClass, details?)`. */
export function specFor<C, S, E>(decider: Decider<C, S, E>) {
  return (history: E[]) => ({
    when: (command: C) => {
      const run = () => decider.decide(command, history.reduce(decider.evolve, decider.initial));
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (error: new (...args: never[]) => Error, shape?: { code?: string; details?: unknown }) => {
          let thrown: unknown;
          try {
            run();
          } catch (caught) {
            thrown = caught;
          }
          expect(thrown).toBeInstanceOf(error);
          if (shape) expect(thrown).toMatchObject(shape);
        },
      };
    },
  });
}
