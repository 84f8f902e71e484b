import { ChainVerifier } from '@switchboard/eventstore';
import type { ChainFinding, EventStore } from '@switchboard/eventstore';
import type { ServiceName, SwitchboardConfig } from '@switchboard/service-kit';
import { ProgressBar } from '../progress.js';
import { logPages, streamPages, withAuditedStores } from './audited-stores.js';

/** One store's check: what was read and what was found. */
export interface StoreVerification {
  /** The service whose store this is; `all` for a KurrentDB log every service shares. */
  service: ServiceName | 'all';
  /** Where the events were read (never a URL: it may hold a password). */
  store: string;
  /** False when the service has no store yet: nothing to verify. */
  exists: boolean;
  events: number;
  streams: number;
  chainedStreams: number;
  unchainedStreams: number;
  findings: ChainFinding[];
  seconds: number;
}

/**
 * Walks the event stores of `services` (or one stream in them) as the services open them from
 * the configuration, checking every stream's hash chain in one pass over each log, with a progress
 * line on a terminal.
 */
export async function verifyStores(config: SwitchboardConfig, services: readonly ServiceName[], stream: string | undefined): Promise<StoreVerification[]> {
  return withAuditedStores(config, services, async (stores) => {
    const results: StoreVerification[] = [];
    for (const { service, where, store } of stores) {
      results.push(store === undefined ? { ...nothingRead(service, where), exists: false } : await verifyStore(store, service, where, stream));
    }
    return results;
  });
}

async function verifyStore(store: EventStore, service: ServiceName | 'all', where: string, stream: string | undefined): Promise<StoreVerification> {
  const verifier = new ChainVerifier();
  const findings: ChainFinding[] = [];
  const progress = new ProgressBar(service, 'events');
  const head = stream === undefined ? await store.lastPosition() : undefined;
  const started = performance.now();
  let events = 0;
  for await (const page of stream === undefined ? logPages(store) : streamPages(store, stream)) {
    for (const event of page) {
      const found = verifier.add(event);
      if (found.length > 0) findings.push(...found);
    }
    events += page.length;
    progress.update(events, head === undefined ? undefined : Number(page.at(-1)!.position) / Number(head));
  }
  findings.push(...verifier.end());
  progress.end();
  const result = { ...nothingRead(service, where), events, findings, seconds: (performance.now() - started) / 1000 };
  for (const summary of verifier.summaries()) {
    result.streams += 1;
    if (summary.chainedFrom === undefined) result.unchainedStreams += 1;
    else result.chainedStreams += 1;
  }
  return result;
}

function nothingRead(service: ServiceName | 'all', store: string): StoreVerification {
  return { service, store, exists: true, events: 0, streams: 0, chainedStreams: 0, unchainedStreams: 0, findings: [], seconds: 0 };
}
