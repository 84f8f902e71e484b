/**
 * The cost of sealing message contents on appends (issue 16, item 4), in one run:
 *   npm run bench:contents -w @switchboard/messaging   (after a build: node dist/bench/content-seal.bench.js)
 * BENCH_SEAL_APPENDS acceptances (default 20,000), one per new message stream, 64 in flight, through
 * the service's own handler loop (executeCommand: read the stream, decide, append) on fresh SQLite
 * stores: once writing the content in plain text (MessageAccepted@2, as before issue 16) and once
 * sealed under the account's data key (MessageAccepted@3, the key unwrapped once and kept),
 * alternating, best of three each. Then sealing and opening alone on the same contents. CPU per
 * append is this process's: the embedded store runs in it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { messageEventParser, messageStream } from '@switchboard/contracts';
import { SqliteEventStore } from '@switchboard/eventstore';
import { eventMetadata, executeCommand } from '@switchboard/service-kit';
import type { AggregateFold } from '@switchboard/service-kit';
import { ContentKeys } from '../src/contents/content-keys.js';
import { MessageFacts } from '../src/contents/message-facts.js';
import type { MessageFact } from '../src/contents/opened-content.js';
import { SqliteDataKeyStore } from '../src/contents/sqlite-data-key-store.js';
import type { MessageCommand } from '../src/message/commands.js';
import { decide } from '../src/message/decide.js';
import { evolve } from '../src/message/evolve.js';
import { messageFold } from '../src/message/fold.js';
import { initialState } from '../src/message/state.js';
import type { Message } from '../src/message/state.js';

const APPENDS = Number(process.env['BENCH_SEAL_APPENDS'] ?? 20_000);
const IN_FLIGHT = 64;
const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const NOW = new Date('2026-11-21T12:00:00.000Z');

const messageId = (n: number) => `msg_01JD${String(n).padStart(22, '0')}`;
const accept = (n: number): Extract<MessageCommand, { type: 'AcceptMessage' }> => ({
  type: 'AcceptMessage', messageId: messageId(n), accountId: ACC, sessionId: 'ses_01JD8Z5W3X4Y5Z6A7B8C9D0E1G', to: '15551234567',
  content: { type: 'text', text: `Your order #${n} has shipped and arrives tomorrow before noon.` },
  quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-21', now: NOW,
});

/** As before issue 16: the content written as it is. */
const plainFold: AggregateFold<Message, MessageFact> = { initial: initialState, evolve, parse: (raw) => messageEventParser.parse(raw) as MessageFact };

async function appendLoad(dir: string, name: string, fold: AggregateFold<Message, MessageFact>) {
  const store = new SqliteEventStore(join(dir, `${name}.sqlite`));
  let next = 0;
  const worker = async () => {
    while (next < APPENDS) {
      const n = next++;
      await executeCommand(store, messageStream(messageId(n)), fold, (state) => decide(accept(n), state), eventMetadata({ accountId: ACC, now: NOW }));
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await store.close();
  return { appendsPerSecond: Math.round(APPENDS / seconds), wallUsPerAppend: +((seconds * 1e6) / APPENDS).toFixed(1), cpuUsPerAppend: +((used.user + used.system) / APPENDS).toFixed(1) };
}

function perOperation(count: number, work: (n: number) => void): number {
  const started = performance.now();
  for (let n = 0; n < count; n += 1) work(n);
  return +(((performance.now() - started) * 1000) / count).toFixed(2);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-seal-bench-'));
  try {
    const keys = new ContentKeys(new SqliteDataKeyStore(join(dir, 'data-keys.sqlite')), randomBytes(32));
    await keys.sealingKey(ACC);
    const facts = new MessageFacts(keys);
    const sealedFold = messageFold(facts);
    const best: Record<string, Awaited<ReturnType<typeof appendLoad>>> = {};
    for (let round = 0; round < 3; round += 1) {
      for (const [name, fold] of [['plain', plainFold], ['sealed', sealedFold]] as const) {
        const run = await appendLoad(dir, `${name}-${round}`, fold);
        if (!best[name] || run.cpuUsPerAppend < best[name].cpuUsPerAppend) best[name] = run;
      }
    }
    const content = accept(0).content;
    const sealUs = perOperation(APPENDS, (n) => keys.seal(ACC, messageId(n), content));
    const sealed = keys.seal(ACC, messageId(0), content);
    const openUs = perOperation(APPENDS, () => keys.open(ACC, messageId(0), sealed));
    const plain = best['plain']!;
    const withSeal = best['sealed']!;
    console.log(`appends of MessageAccepted through executeCommand, ${APPENDS.toLocaleString('en-US')} each, ${IN_FLIGHT} in flight, best of 3:`);
    console.log(`  plain text (MessageAccepted@2):    ${plain.cpuUsPerAppend} µs CPU/append, ${plain.wallUsPerAppend} µs wall/append, ${plain.appendsPerSecond.toLocaleString('en-US')} appends/s`);
    console.log(`  sealed    (MessageAccepted@3):    ${withSeal.cpuUsPerAppend} µs CPU/append, ${withSeal.wallUsPerAppend} µs wall/append, ${withSeal.appendsPerSecond.toLocaleString('en-US')} appends/s`);
    console.log(`  cost of sealing:                  ${(withSeal.cpuUsPerAppend - plain.cpuUsPerAppend).toFixed(1)} µs CPU/append (${(((withSeal.cpuUsPerAppend / plain.cpuUsPerAppend) - 1) * 100).toFixed(1)} %)`);
    console.log(`alone: seal ${sealUs} µs, open ${openUs} µs per ${JSON.stringify(content).length}-byte content (AES-256-GCM, key kept in memory)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
