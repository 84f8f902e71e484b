import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteEventStore } from '@switchboard/eventstore';
import type { RecordedEvent } from '@switchboard/eventstore';
import { inMemorySpans, processMetrics, startTelemetry } from '@switchboard/telemetry';
import type { TelemetryHandle } from '@switchboard/telemetry';
import { ProjectionRunner } from '../src/projection-runner.js';
import { tempDir } from './support.js';

const SEND_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const grant = (holder: string) => ({ type: 'TicketGranted', data: { holder }, metadata: { traceparent: SEND_TRACEPARENT } });

/** The lag series as Prometheus would scrape it; undefined when the projection is not registered. */
async function scrapedLag(projection: string): Promise<number | undefined> {
  const metric = await processMetrics().registry.getSingleMetric('switchboard_projection_lag_events')?.get();
  return metric?.values.find((v) => v.labels['projection'] === projection)?.value;
}

describe('what an SRE sees of a projection', () => {
  const spans = inMemorySpans();
  let telemetry: TelemetryHandle;
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let db: DatabaseSync;

  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'projection-test', env: {}, spanProcessors: [spans.processor] });
  });
  afterAll(() => telemetry.shutdown());
  beforeEach(() => {
    dir = tempDir();
    store = new SqliteEventStore(join(dir.path, 'events.sqlite'));
    db = new DatabaseSync(join(dir.path, 'read.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    db.close();
    dir.remove();
  });

  it('reports the events it has not applied as switchboard_projection_lag_events, until it stops', async () => {
    // An event it cannot apply stops it there: the lag shows exactly what is stuck behind.
    const apply = (event: RecordedEvent) => {
      if ((event.data as { holder: string }).holder === 'poison') throw new Error('cannot apply');
    };
    const runner = new ProjectionRunner(store, db, { name: 'stuck-projection', category: 'ticket', apply });
    await runner.start();
    await runner.waitForPosition((await store.append('ticket-a', [grant('ok')], { expectedRevision: 'no_stream' })).position);
    await store.append('ticket-a', [grant('poison'), grant('ok')], { expectedRevision: 0n });
    while (runner.failed() === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await scrapedLag('stuck-projection')).toBe(2);
    await runner.stop();
    expect(await scrapedLag('stuck-projection')).toBeUndefined();
  });

  it('applies each event in a span linked to the request that appended it', async () => {
    const appended = await store.append('ticket-b', [grant('ok')], { expectedRevision: 'no_stream' });
    const runner = new ProjectionRunner(store, db, { name: 'linked-projection', category: 'ticket', apply: () => {} });
    await runner.start();
    await runner.waitForPosition(appended.position);
    await runner.stop();
    const projected = (await spans.finished()).find((span) => span.name === 'project linked-projection');
    expect(projected?.parentSpanContext).toBeUndefined();
    expect(projected?.links[0]?.context).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' });
  });
});
