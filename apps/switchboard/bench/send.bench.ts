/**
 * `npm run bench:send`: what Switchboard costs on top of the chat layer, in one run.
 *   1. raw Baileys `sendMessage` through the emulator (no Switchboard): the ceiling;
 *   2. text sends through the whole pipeline (HTTP → gateway → messaging → quota → sessions →
 *      Baileys → emulator → ack), embedded and distributed, sequential and 16 in flight;
 *   3. `GET /v1/messages/{id}` reads/s beside a bare fastify handler.
 * The emulator always runs in its own process. BENCH_SENDS (default 1000) sets the count.
 */
import Fastify from 'fastify';
import { ApiClient, eventually } from '../test/support/http.js';
import { startEmulatorProcess, startSwitchboardUnderTest } from '../test/support/harness.js';
import type { Mode } from '../test/support/harness.js';
import { linkRawBaileys } from './raw-baileys.js';
import { runFor, runLoad } from './stats.js';

const SENDS = Number(process.env['BENCH_SENDS'] ?? 1000);
const CONCURRENCY = 16;
const READ_SECONDS = 5;
const CONTACT = '15559990001';
const results: Record<string, unknown> = { sends: SENDS, concurrency: CONCURRENCY };

async function rawBaileys() {
  const emulator = await startEmulatorProcess();
  try {
    const sock = await linkRawBaileys(emulator, '15558880001');
    const jid = `${CONTACT}@s.whatsapp.net`;
    const send = async (i: number) => void (await sock.sendMessage(jid, { text: `raw ${i}` }));
    await runLoad(50, 1, send);
    results['rawBaileys'] = { sequential: await runLoad(SENDS, 1, send), concurrent: await runLoad(SENDS, CONCURRENCY, send) };
    sock.end(undefined);
  } finally {
    await emulator.stop();
  }
}

async function pipeline(mode: Mode) {
  const emulator = await startEmulatorProcess();
  const sut = await startSwitchboardUnderTest(mode, { emulator, env: { LOG_LEVEL: 'error' } });
  try {
    const api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, `1555777${mode === 'embedded' ? '0001' : '0002'}`);
    const sessionId = created.body.data.sessionId as string;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    let lastMessageId = '';
    const send = async (i: number) => {
      const sent = await api.post('/v1/messages/text', { sessionId, to: CONTACT, text: `pipeline ${i}` });
      if (sent.status !== 201) throw new Error(`send answered ${sent.status}: ${JSON.stringify(sent.body)}`);
      lastMessageId = sent.body.data.messageId;
    };
    await runLoad(50, 1, send);
    const sequential = await runLoad(SENDS, 1, send);
    const concurrent = await runLoad(SENDS, CONCURRENCY, send);
    const reads = await runFor(READ_SECONDS, 32, async () => {
      const read = await api.get(`/v1/messages/${lastMessageId}`);
      if (read.status !== 200) throw new Error(`lookup answered ${read.status}`);
    });
    results[mode] = { sequential, concurrent, reads };
  } finally {
    await sut.close();
    await emulator.stop();
  }
}

/** The same kind of answer from a handler that does nothing: HTTP and JSON alone. */
async function bareFastify() {
  const app = Fastify();
  const body = { success: true, data: { messageId: 'msg_01JD0000000000000000000000', status: 'read', timestamp: new Date().toISOString(), deliveredAt: null, readAt: null } };
  app.get('/v1/messages/:id', async () => body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const api = new ApiClient(`http://127.0.0.1:${port}`, 'unused');
  results['bareFastifyReads'] = await runFor(READ_SECONDS, 32, async () => void (await api.get('/v1/messages/x')));
  await app.close();
}

await rawBaileys();
await pipeline('embedded');
await pipeline('distributed');
await bareFastify();

type Figures = { perSecond: number; p50Ms: number; p99Ms: number };
const raw = results['rawBaileys'] as { sequential: Figures; concurrent: Figures };
const bare = results['bareFastifyReads'] as Figures;
for (const mode of ['embedded', 'distributed'] as const) {
  const m = results[mode] as { sequential: Figures; concurrent: Figures; reads: Figures };
  results[`${mode}Summary`] = {
    sequentialVsRawBaileys: +(m.sequential.perSecond / raw.sequential.perSecond).toFixed(2),
    concurrentVsRawBaileys: +(m.concurrent.perSecond / raw.concurrent.perSecond).toFixed(2),
    apiOverheadP50Ms: +(m.sequential.p50Ms - raw.sequential.p50Ms).toFixed(2),
    readsVsBareFastify: +(m.reads.perSecond / bare.perSecond).toFixed(2),
  };
}
console.log(JSON.stringify(results, null, 2));
