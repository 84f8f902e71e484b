import { Gauge } from 'prom-client';
import type { GaugeConfiguration, LabelValues } from 'prom-client';

/** Values read at scrape time: label values to numbers. */
export type GaugeSource<L extends string> = () => Promise<Iterable<[LabelValues<L>, number]>> | Iterable<[LabelValues<L>, number]>;

/**
 * A gauge whose values are read from their owners when Prometheus scrapes (a read model's
 * counts, a projection's position) instead of being pushed on every change. Several owners may
 * feed one gauge (the embedded process runs every service); each adds a source and removes it
 * when it stops. A failing source is skipped for that scrape so the others still show.
 */
export class SourcedGauge<L extends string> extends Gauge<L> {
  private readonly sources = new Set<GaugeSource<L>>();

  constructor(configuration: Omit<GaugeConfiguration<L>, 'collect'>) {
    // prom-client calls `collect` on the metric itself at every scrape.
    super({ ...configuration, collect: async function (this: SourcedGauge<L>) { await this.refresh(); } } as GaugeConfiguration<L>);
  }

  /** Registers `source`; the returned function removes it. */
  addSource(source: GaugeSource<L>): () => void {
    this.sources.add(source);
    return () => void this.sources.delete(source);
  }

  private async refresh(): Promise<void> {
    this.reset();
    for (const source of this.sources) await this.readSource(source);
  }

  private async readSource(source: GaugeSource<L>): Promise<void> {
    try {
      for (const [labels, value] of await source()) this.set(labels, value);
    } catch {
      // A closed database or a store going away mid-scrape: no value this time, not a failed scrape.
    }
  }
}
