/** One Prometheus scrape, as `series → value` (`name{label="v",...}` exactly as exposed). */
export type Scrape = Record<string, number>;

export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  const series: Scrape = {};
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series[line.slice(0, at)] = Number(line.slice(at + 1));
  }
  return series;
}

/** How much `series` grew between two scrapes (a series first seen in `after` grew from 0). */
export function growth(before: Scrape, after: Scrape, series: string): number {
  return (after[series] ?? 0) - (before[series] ?? 0);
}
