/**
 * Waits for `promise` to settle, for at most `ms`: a stop's bounded wait for work under way. Its
 * outcome is not told here (the work reports its own failures).
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const settled = promise.then(
    () => undefined,
    () => undefined,
  );
  await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
