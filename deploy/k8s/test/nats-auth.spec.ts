import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUS_SUBJECTS, EVENT_CATEGORY, FEED_SOURCES, QuotaSubjects, ReadySubjects, RebuildableService, projectionRebuildReportSubject, projectionRebuildSubject, subjectForEvent } from '@switchboard/contracts';
import type { DomainEventType } from '@switchboard/contracts';
import { describe, expect, it } from 'vitest';
import { busUsage, ownerOf } from './bus-usage.js';
import { render } from './kustomize.js';
import type { Manifest } from './kustomize.js';
import { allows, readNatsConf } from './nats-conf.js';
import type { NatsUser } from './nats-conf.js';

// base/nats.conf gives each process a NATS user of its own that may publish and subscribe only
// to what its code uses; these tests hold the file to contracts/ and to the calls in services/.

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(k8sDir, '..', '..');
const SERVICES = ['gateway', 'sessions', 'messaging', 'quota', 'events'] as const;
const { conf, users } = readNatsConf(join(k8sDir, 'base', 'nats.conf'));
const userOf = (name: string): NatsUser => users.find((u) => u.user === name)!;
const usage = Object.fromEntries(SERVICES.map((s) => [s, busUsage(repoRoot, s)]));

/** Who may publish `subject` (a reply via allow_responses is not counted: it needs a request first). */
const publishers = (subject: string) => users.filter((u) => allows(u.publish, subject)).map((u) => u.user).sort();
const subscribers = (subject: string) => users.filter((u) => allows(u.subscribe, subject)).map((u) => u.user).sort();

/** What the CLI publishes besides the gateway's own calls: `projections rebuild` asks each service's replicas. */
const CLI_REQUESTS = RebuildableService.options.map((service) => projectionRebuildSubject(service));

const CATEGORY_OWNER: Record<string, string> = { session: 'sessions', message: 'messaging', account: 'quota', usage: 'quota', webhook: 'events' };
/** The one service that publishes an event subject: a feed wake-up its source, public wake-ups events, stored events their category's owner. */
function publisherOf(subject: string): string {
  const [, , , kind, name] = subject.split('.');
  if (kind === 'feed') return name!;
  if (kind === 'public') return 'events';
  return CATEGORY_OWNER[kind!]!;
}

/** The JetStream names the code uses: its constants, and which services open the blob store. */
function jetStreamInCode() {
  const constants = (dir: string) => Object.fromEntries(
    readdirSync(join(repoRoot, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
      .flatMap((f) => [...readFileSync(join(repoRoot, dir, f), 'utf8').matchAll(/export const (\w+) = '([\w.-]+)';/g)].map((m) => [m[1]!, m[2]!])),
  );
  const sessions = constants('services/sessions/src');
  const messaging = constants('services/messaging/src');
  const blobUsers = SERVICES.filter((s) =>
    readdirSync(join(repoRoot, 'services', s, 'src'), { recursive: true, encoding: 'utf8' })
      .some((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && /\b(openBlobStore|lazyBlobStore)\(/.test(readFileSync(join(repoRoot, 'services', s, 'src', f), 'utf8'))),
  ).sort();
  return {
    kvBuckets: Object.entries(sessions).filter(([name]) => name.endsWith('_BUCKET')).map(([, value]) => value),
    messagingBuckets: Object.entries(messaging).filter(([name]) => name.endsWith('_BUCKET')).map(([, value]) => value),
    objectStore: constants('libs/blob-store/src')['DEFAULT_BUCKET']!,
    outbox: sessions['OUTBOX_STREAM'] ? { stream: sessions['OUTBOX_STREAM'], subject: sessions['OUTBOX_SUBJECT']! } : undefined,
    blobUsers,
  };
}

/** Every request/reply subject of a service: its contract subjects, its ready subject and (sources) its feed. */
function ownSubjects(service: string): string[] {
  const contracts = (node: unknown): string[] =>
    typeof node === 'object' && node !== null && 'subject' in node ? [(node as { subject: string }).subject] : Object.values(node as object).flatMap(contracts);
  const feed = (FEED_SOURCES as readonly string[]).includes(service) ? [`sb.v1.${service}.feed`] : [];
  const ready = ReadySubjects[service as keyof typeof ReadySubjects]?.subject;
  return [...contracts(BUS_SUBJECTS[service as keyof typeof BUS_SUBJECTS] ?? {}), ...feed, ...(ready ? [ready] : [])];
}

describe('NATS users and permissions (base/nats.conf)', () => {
  it('has exactly one user per process, each with its password from the environment', () => {
    expect(users.map((u) => u.user).sort()).toEqual([...SERVICES].sort());
    for (const u of users) expect(u.passwordVariable).toBe(`NATS_${u.user.toUpperCase()}_PASSWORD`);
    // No way in without a password: no anonymous default user, no open account.
    expect(conf['no_auth_user']).toBeUndefined();
    expect(conf['accounts']).toBeUndefined();
  });

  it.each(SERVICES)('lets %s request exactly the subjects of other services its code calls', (service) => {
    const { requests, unknown } = usage[service]!;
    expect(unknown, 'references the scan cannot read (add them to DYNAMIC in bus-usage.ts)').toEqual([]);
    const user = userOf(service);
    expect([...requests].filter((s) => !allows(user.publish, s))).toEqual([]);
    // Nothing more: each sb.v1.<other>.<verb> it may publish is one it calls (or, the gateway's user running the CLI, a rebuild request).
    const granted = user.publish.filter((p) => p.startsWith('sb.v1.') && !p.startsWith('sb.v1.evt.') && ownerOf(p) !== service && !(service === 'gateway' && CLI_REQUESTS.includes(p)));
    expect(granted.filter((p) => !requests.has(p))).toEqual([]);
    if (requests.size > 0) expect(user.subscribe, 'replies come back on _INBOX').toContain('_INBOX.>');
  });

  it.each(SERVICES.filter((s) => s !== 'gateway'))('lets only %s answer its own subjects', (service) => {
    const user = userOf(service);
    expect(user.allowResponses).toBe(true);
    for (const subject of ownSubjects(service)) {
      expect(subscribers(subject), subject).toEqual([service]);
      expect(usage[service]!.answers.has(subject) || subject.endsWith('.feed') || subject.endsWith('.ready'), `${subject} is answered in services/${service}`).toBe(true);
    }
  });

  it('lets the CLI (run with the gateway\'s user) ask every replica to rebuild its read models, and hear their reports', () => {
    for (const service of RebuildableService.options) {
      expect(publishers(projectionRebuildSubject(service)), service).toEqual(['gateway']);
      expect(subscribers(projectionRebuildSubject(service)), service).toEqual([service]);
    }
    const report = projectionRebuildReportSubject('01JD8X0000000000000000RUN1');
    expect(publishers(report)).toEqual(['events', 'messaging', 'sessions']);
    expect(subscribers(report)).toEqual(['gateway']);
  });

  it('lets the sessions replicas forward requests to each other on their own subjects, and no one else', () => {
    const forwarded = 'sb.v1.sessions.replica.r_01J0000000000000000000000.send';
    expect(publishers(forwarded)).toEqual(['sessions']);
    expect(subscribers(forwarded)).toEqual(['sessions']);
  });

  it('lets only the gateway and messaging call quota, plus sessions for its session slots and account lookups', () => {
    const callers = Object.fromEntries(ownSubjects('quota').map((s) => [s, publishers(s)]));
    const gatewayOnly = ['authenticate', 'accounts.create', 'accounts.list', 'accounts.update', 'accounts.close', 'keys.create', 'keys.list', 'keys.revoke', 'ready'];
    expect(callers).toEqual({
      ...Object.fromEntries(gatewayOnly.map((verb) => [`sb.v1.quota.${verb}`, ['gateway']])),
      [QuotaSubjects.reserveDaily.subject]: ['messaging'],
      [QuotaSubjects.refundDaily.subject]: ['messaging'],
      // Slots are the sessions service's to take and give back; an account's closure is looked up.
      [QuotaSubjects.reserveSession.subject]: ['sessions'],
      [QuotaSubjects.releaseSession.subject]: ['sessions'],
      [QuotaSubjects.accounts.get.subject]: ['gateway', 'sessions'],
    });
    expect(userOf('events').publish.filter((p) => p.startsWith('sb.v1.quota.'))).toEqual([]);
  });

  it('lets each event subject be published by its one source and heard by the services that use it', () => {
    for (const service of SERVICES) {
      const user = userOf(service);
      for (const subject of usage[service]!.events) {
        const mine = publisherOf(subject) === service;
        expect(allows(mine ? user.publish : user.subscribe, subject), `${service} ${mine ? 'publishes' : 'hears'} ${subject}`).toBe(true);
      }
    }
    const stored = Object.keys(EVENT_CATEGORY).map((type) => subjectForEvent(type as DomainEventType));
    for (const subject of [...stored, ...Object.values(usage).flatMap((u) => [...u.events])]) {
      expect(publishers(subject).filter((p) => p !== publisherOf(subject)), subject).toEqual([]);
    }
    // The quota publisher sends every account and usage event (gateway caches and sessions wait on them).
    for (const subject of stored.filter((s) => publisherOf(s) === 'quota')) expect(publishers(subject), subject).toEqual(['quota']);
  });

  it('grants nobody a catch-all: no `>` or `sb.>`, no subscription to another service\'s requests', () => {
    for (const u of users) {
      for (const pattern of [...u.publish, ...u.subscribe]) expect(pattern, u.user).not.toMatch(/^(>|sb\.>|sb\.v1\.>|\$JS\.>|\$JS\.API\.>|\$KV\.>|\$O\.>)$/);
      const foreign = u.subscribe.filter((p) => /^sb\.v1\.(?!evt\.)/.test(p) && ownerOf(p) !== u.user);
      expect(foreign, u.user).toEqual([]);
    }
  });

  it('keeps each JetStream bucket and stream to the services whose code opens it', () => {
    const { kvBuckets, messagingBuckets, objectStore, outbox, blobUsers } = jetStreamInCode();
    expect(kvBuckets.sort()).toEqual(['sb_chat_credentials', 'sb_sessions_contacts', 'sb_sessions_owners', 'sb_sessions_replicas', 'sb_sessions_sent']);
    // The accounts' data keys (issue 16): messaging's own bucket, a destroyed key erased in place.
    expect(messagingBuckets).toEqual(['sb_messaging_data_keys']);
    for (const bucket of messagingBuckets) {
      for (const subject of [`$KV.${bucket}.acc_1`, `$JS.API.STREAM.CREATE.KV_${bucket}`, `$JS.API.STREAM.MSG.DELETE.KV_${bucket}`, `$JS.API.STREAM.PURGE.KV_${bucket}`, `$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.k`]) {
        expect(publishers(subject), subject).toEqual(['messaging']);
      }
    }
    for (const bucket of kvBuckets) {
      for (const subject of [`$KV.${bucket}.some.key`, `$JS.API.STREAM.CREATE.KV_${bucket}`, `$JS.API.STREAM.INFO.KV_${bucket}`, `$JS.API.CONSUMER.CREATE.KV_${bucket}.c1.$KV.${bucket}.>`, `$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.k`]) {
        expect(publishers(subject), subject).toEqual(['sessions']);
      }
    }
    expect(blobUsers).toEqual(['gateway', 'messaging', 'sessions']);
    for (const subject of [`$O.${objectStore}.C.abc`, `$O.${objectStore}.M.abc`, `$JS.API.STREAM.INFO.OBJ_${objectStore}`, `$JS.API.CONSUMER.CREATE.OBJ_${objectStore}.c1`]) {
      expect(publishers(subject), subject).toEqual(blobUsers);
    }
    if (outbox) {
      const { stream, subject } = outbox;
      for (const s of [subject, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.CONSUMER.CREATE.${stream}.sessions-forwarder.${subject}`, `$JS.API.CONSUMER.MSG.NEXT.${stream}.sessions-forwarder`, `$JS.ACK.${stream}.sessions-forwarder.1.2.3.4.5`]) {
        expect(publishers(s), s).toEqual(['sessions']);
      }
    }
    // No grant for a stream that no code opens.
    const known = new Set([...kvBuckets.map((b) => `KV_${b}`), ...messagingBuckets.map((b) => `KV_${b}`), `OBJ_${objectStore}`, ...(outbox ? [outbox.stream] : [])]);
    const api = /^\$JS\.(?:API\.STREAM\.(?:MSG\.GET|MSG\.DELETE|INFO|CREATE|UPDATE|DELETE|PURGE)|API\.CONSUMER\.(?:MSG\.NEXT|DURABLE\.CREATE|CREATE|INFO|DELETE)|API\.DIRECT\.GET|FC|ACK)\.([^.]+)/;
    const granted = users.flatMap((u) => u.publish).filter((p) => p.startsWith('$JS.') && p !== '$JS.API.INFO').map((p) => api.exec(p)?.[1] ?? `unread grant ${p}`);
    expect([...new Set(granted)].filter((stream) => !known.has(stream))).toEqual([]);
    for (const service of ['quota', 'events']) {
      expect(userOf(service).publish.filter((p) => /^\$(JS|KV|O)\./.test(p)), service).toEqual([]);
    }
  });
});

describe('NATS credentials in the manifests', () => {
  const manifests = render(join(k8sDir, 'base'));
  const env = (m: Manifest) => (m['spec'] as { template: { spec: { containers: { env?: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[] }[] } } }).template.spec.containers[0]!.env ?? [];

  it.each(SERVICES)('connects %s as its own user, with the password from its own Secret', (service) => {
    const workload = manifests.find((m) => m.metadata.name === `switchboard-${service}` && m.kind !== 'PodDisruptionBudget')!;
    const vars = env(workload);
    const password = vars.findIndex((e) => e.name === 'NATS_PASSWORD');
    const url = vars.findIndex((e) => e.name === 'SWITCHBOARD_NATS_URL');
    expect(vars[password]?.valueFrom?.secretKeyRef).toEqual({ name: `switchboard-nats-${service}`, key: 'password' });
    expect(vars[url]?.value).toBe(`nats://${service}:$(NATS_PASSWORD)@nats:4222`);
    expect(password, 'a $(VARIABLE) is expanded only from variables defined before it').toBeLessThan(url);
  });

  it('gives the NATS server every user\'s password from the same Secrets, and its configuration from the generated ConfigMap', () => {
    const nats = manifests.find((m) => m.kind === 'StatefulSet' && m.metadata.name === 'nats')!;
    const refs = Object.fromEntries(env(nats).map((e) => [e.name, e.valueFrom?.secretKeyRef]));
    for (const u of users) expect(refs[u.passwordVariable], u.user).toEqual({ name: `switchboard-nats-${u.user}`, key: 'password' });
    const spec = (nats['spec'] as { template: { spec: { containers: { args: string[] }[]; volumes: { configMap?: { name: string } }[] } } }).template.spec;
    expect(spec.containers[0]!.args).toEqual(['-c', '/etc/nats/nats.conf']);
    expect(spec.volumes.map((v) => v.configMap?.name)).toContain('nats-config');
    expect(manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'nats-config')).toBeDefined();
    expect((conf['jetstream'] as { store_dir: string }).store_dir).toMatch(/^\/data\//);
  });
});
