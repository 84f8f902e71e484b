/**
 * Many sessions linked through the public API and the emulator's fake phones, for the benches
 * that need hundreds or thousands of them (replicas, restart).
 */
import type { SwitchboardUnderTest } from '../test/support/harness.js';
import { ApiClient, eventually } from '../test/support/http.js';

/** Links and checks run this many at a time (the emulator and the server share the machine). */
const PARALLEL = 16;

/** `work` over every item, `PARALLEL` at a time; results in the items' order. */
export async function inParallel<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return results;
}

export interface LinkedSession {
  sessionId: string;
  phone: string;
}

/**
 * Creates a session per phone and scans its QR with that phone; resolves once every one is
 * connected. A QR the emulator cannot read the first time (a PNG decode miss) is scanned again from
 * `GET /qr`; `rescans` counts those, `retries` the creates answered 502 and asked again.
 */
export async function linkSessions(sut: SwitchboardUnderTest, phones: readonly string[], timeoutMs = 300_000): Promise<{ linked: LinkedSession[]; rescans: number; retries: number }> {
  const api = new ApiClient(sut.url, sut.apiKey);
  let rescans = 0;
  let retries = 0;
  const linked = await inParallel(phones, async (phone) => {
    let created = await api.post('/v1/sessions', {});
    // A busy machine may miss the 20 s for the first QR: a retryable 502, retried as a client would.
    for (let retry = 0; created.status === 502 && retry < 3; retry++) {
      retries += 1;
      created = await api.post('/v1/sessions', {});
    }
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    const sessionId = created.body.data.sessionId as string;
    await sut.emulator.scan(created.body.data.qrCode, phone).catch(async (error: unknown) => {
      if ((error as { code?: string }).code !== 'qr_unreadable') throw error;
      rescans += 1;
      await sut.emulator.scan((await api.get(`/v1/sessions/${sessionId}/qr`)).body.data.qrCode, phone);
    });
    return { sessionId, phone };
  });
  await inParallel(linked, ({ sessionId }) => eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected', timeoutMs));
  return { linked, rescans, retries };
}
