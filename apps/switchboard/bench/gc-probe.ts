/**
 * Preloaded into the process under test by BENCH_SOAK (`--expose-gc --import=…/gc-probe.js`):
 * every GC_PROBE_MS it forces a full GC and prints the heap left, the live set, for the bench to
 * read from the output. A scrape of /metrics alone sees whatever garbage is still uncollected.
 * `--trace-gc` would say the same but is refused in NODE_OPTIONS.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  const timer = setInterval(() => {
    gc();
    process.stdout.write(`[gc-probe] live heap ${process.memoryUsage().heapUsed}\n`);
  }, Number(process.env['GC_PROBE_MS'] ?? 2_000));
  timer.unref();
}
