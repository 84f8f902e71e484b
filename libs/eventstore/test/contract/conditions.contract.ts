import { afterAll, beforeAll, expect, it } from 'vitest';
import { WrongExpectedRevisionError, type EventStore } from '../../src/index.js';
import { dataOf, events, freshStream, type ContractTarget } from './helpers.js';

/** `AppendOptions.unchanged`: an append made only while the streams it was decided on stand where they were read. */
export function conditionsContract(target: () => ContractTarget): void {
  let writer: EventStore;
  let other: EventStore;
  beforeAll(async () => {
    [writer, other] = await Promise.all([target().connect(), target().connect()]);
  });
  afterAll(async () => {
    await Promise.all([writer?.close(), other?.close()]);
  });

  it('appends while every condition holds, and writes nothing to the streams it names', async () => {
    const [account, absent, usage] = [freshStream('account'), freshStream('account'), freshStream('usage')];
    await other.append(account, events(2), { expectedRevision: 'no_stream' });
    const appended = await writer.append(usage, events(1), {
      expectedRevision: 'no_stream',
      unchanged: [{ stream: account, revision: 1n }, { stream: absent, revision: 'no_stream' }],
    });
    expect(appended.nextRevision).toBe(0n);
    expect(dataOf(await other.readStream(usage))).toEqual([{ n: 0 }]);
    expect(await other.readStream(account)).toHaveLength(2);
    expect(await other.readStream(absent)).toEqual([]);
  });

  it('refuses, appending nothing, once another connection moved a stream it names; the error names that stream', async () => {
    const [account, usage] = [freshStream('account'), freshStream('usage')];
    await writer.append(account, events(1), { expectedRevision: 'no_stream' });
    await writer.append(usage, events(1), { expectedRevision: 'no_stream', unchanged: [{ stream: account, revision: 0n }] });
    await other.append(account, events(1, 'PlanChanged'), { expectedRevision: 0n });
    const refused = await writer.append(usage, events(1, 'ThingHappened', 1), { expectedRevision: 0n, unchanged: [{ stream: account, revision: 0n }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WrongExpectedRevisionError);
    expect(refused).toMatchObject({ stream: account, expected: 0n, actual: 1n });
    expect(await other.readStream(usage)).toHaveLength(1);
    // Decided again on the stream as it is now, it goes through.
    await writer.append(usage, events(1, 'ThingHappened', 1), { expectedRevision: 0n, unchanged: [{ stream: account, revision: 1n }] });
    expect(dataOf(await other.readStream(usage))).toEqual([{ n: 0 }, { n: 1 }]);
  });

  it('refuses a stream named absent that exists, and one named at a revision that does not exist', async () => {
    const [existing, absent, usage] = [freshStream('account'), freshStream('account'), freshStream('usage')];
    await other.append(existing, events(1), { expectedRevision: 'no_stream' });
    await expect(writer.append(usage, events(1), { expectedRevision: 'no_stream', unchanged: [{ stream: existing, revision: 'no_stream' }] }))
      .rejects.toMatchObject({ name: 'WrongExpectedRevisionError', stream: existing, actual: 0n });
    await expect(writer.append(usage, events(1), { expectedRevision: 'no_stream', unchanged: [{ stream: absent, revision: 0n }] }))
      .rejects.toMatchObject({ name: 'WrongExpectedRevisionError', stream: absent, actual: 'no_stream' });
    expect(await other.readStream(usage)).toEqual([]);
  });

  it('decides each of several appends made at once on its own conditions: a moved stream fails only the appends that name it', async () => {
    const [moved, still] = [freshStream('account'), freshStream('account')];
    await other.append(moved, events(2), { expectedRevision: 'no_stream' });
    await other.append(still, events(1), { expectedRevision: 'no_stream' });
    const usages = Array.from({ length: 4 }, () => freshStream('usage'));
    const outcomes = await Promise.allSettled(usages.map((usage, i) =>
      writer.append(usage, events(1), { expectedRevision: 'no_stream', unchanged: [i % 2 === 0 ? { stream: still, revision: 0n } : { stream: moved, revision: 0n }] })));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    for (const [i, usage] of usages.entries()) expect(await other.readStream(usage)).toHaveLength(i % 2 === 0 ? 1 : 0);
  });
}
