import { describe, expect, it } from 'vitest';
import { nextTurns } from './resume-turns.js';

describe('whose turn it is to resume', () => {
  it('fills the free places in the order the sessions were queued', () => {
    expect(nextTurns([], ['a', 'b', 'c', 'd'], 0, 3)).toEqual(['a', 'b', 'c']);
    expect(nextTurns([], ['d', 'e'], 2, 3)).toEqual(['d']);
  });

  it('gives no turn while every place is taken', () => {
    expect(nextTurns(['x'], ['a'], 3, 3)).toEqual([]);
    // Fewer places after the limit was lowered: still none, never a negative count.
    expect(nextTurns(['x'], ['a'], 5, 3)).toEqual([]);
  });

  it('puts the sessions a request waits for first, in the order they were asked for', () => {
    expect(nextTurns(['y', 'x'], ['a', 'b'], 0, 3)).toEqual(['y', 'x', 'a']);
    expect(nextTurns(['y', 'x'], ['a'], 1, 2)).toEqual(['y']);
  });

  it('gives everyone a turn when the places outnumber the waiting', () => {
    expect(nextTurns(['x'], ['a'], 0, 16)).toEqual(['x', 'a']);
    expect(nextTurns([], [], 0, 16)).toEqual([]);
  });
});
