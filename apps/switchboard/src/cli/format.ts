/** Renders rows as an aligned text table with a header line. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `key: value` lines, aligned. */
export function fields(entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v}`).join('\n');
}

export const orNone = (value: string | null | undefined): string => value ?? '-';

/** A whole number with thousands separators: `1,234,567`. */
export const count = (value: number): string => Math.round(value).toLocaleString('en-US');
