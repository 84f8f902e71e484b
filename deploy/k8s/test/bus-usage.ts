import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  BACKEND_SERVICES, EventsSubjects, FEED_SOURCES, FeedSubjects, MessagingSubjects, QuotaSubjects, ReadySubjects,
  SessionsSubjects, feedWakeSubject, publicEventsWakeSubject, readySubject, subjectForEvent,
} from '@switchboard/contracts';
import type { AccountId, DomainEventType } from '@switchboard/contracts';

/**
 * The bus subjects each service's code uses, read from its sources (not its tests): every
 * `<Service>Subjects.<verb>` (or a local alias of one), `FeedSubjects`, `ReadySubjects`,
 * `subjectForEvent('<Event>')` and `feedWakeSubject('<source>')`. A subject whose owner (the
 * `<service>` of `sb.v1.<service>.<verb>`) is another service is one this service requests.
 * References computed at run time are listed in DYNAMIC; one that is not fails the scan, so a new
 * call cannot slip past the NATS permissions unnoticed.
 */
export interface BusUsage {
  /** Request/reply subjects of other services that this one calls. */
  requests: Set<string>;
  /** Its own request/reply subjects that it answers. */
  answers: Set<string>;
  /** Event subjects named in its code (`subjectForEvent`, `feedWakeSubject`). */
  events: Set<string>;
  /** References the scan could not read: to be added to DYNAMIC. */
  unknown: string[];
}

const ROOTS: Record<string, unknown> = { SessionsSubjects, MessagingSubjects, QuotaSubjects, EventsSubjects, FeedSubjects, ReadySubjects };

export const SAMPLE_ACCOUNT = 'acc_01JD8X0000000000000000TEST' as AccountId;

/** Computed references, by service and the expression's root, with every subject they can name. */
const DYNAMIC: Record<string, string[]> = {
  // services/gateway/src/routes/health.ts: /readyz asks every backend service.
  'gateway readySubject(': BACKEND_SERVICES.map((s) => readySubject(s).subject),
  // services/events/src/intake/intake.ts: the pull of each feed source.
  'events FeedSubjects[': FEED_SOURCES.map((s) => FeedSubjects[s].subject),
  'events feedWakeSubject(': FEED_SOURCES.map((s) => feedWakeSubject(s)),
  // The live stream's wake-up per account: published by events, awaited by the gateway's SSE.
  'events publicEventsWakeSubject(': [publicEventsWakeSubject(SAMPLE_ACCOUNT)],
  'gateway publicEventsWakeSubject(': [publicEventsWakeSubject(SAMPLE_ACCOUNT)],
};

const isContract = (value: unknown): value is { subject: string } =>
  typeof value === 'object' && value !== null && typeof (value as { subject?: unknown }).subject === 'string' && 'request' in value;

function resolve(root: unknown, path: string[]): string | undefined {
  let node = root;
  for (const token of path) {
    if (isContract(node)) break;
    node = (node as Record<string, unknown> | undefined)?.[token];
  }
  return isContract(node) ? node.subject : undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.split('/').includes('testing'))
    .map((f) => join(dir, f));
}

export const ownerOf = (subject: string): string => subject.split('.')[2]!;

export function busUsage(repoRoot: string, service: string): BusUsage {
  const usage: BusUsage = { requests: new Set(), answers: new Set(), events: new Set(), unknown: [] };
  const add = (subject: string) => (ownerOf(subject) === service ? usage.answers : usage.requests).add(subject);
  for (const file of sourceFiles(join(repoRoot, 'services', service, 'src'))) {
    const code = readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, '');
    const aliases = new Map(Object.keys(ROOTS).map((root) => [root, root]));
    for (const [, alias, root] of code.matchAll(/\bconst (\w+) = (\w+Subjects);/g)) aliases.set(alias!, root!);
    for (const [alias, root] of aliases) {
      for (const match of code.matchAll(new RegExp(`(?<![\\w.])${alias}\\.([A-Za-z]+(?:\\.[A-Za-z]+)*)`, 'g'))) {
        const subject = resolve(ROOTS[root], match[1]!.split('.'));
        if (subject) add(subject);
        else usage.unknown.push(`${file}: ${match[0]}`);
      }
    }
    for (const [, type] of code.matchAll(/\bsubjectForEvent\('(\w+)'\)/g)) usage.events.add(subjectForEvent(type as DomainEventType));
    for (const [, source] of code.matchAll(/\bfeedWakeSubject\('(\w+)'\)/g)) usage.events.add(feedWakeSubject(source as 'sessions'));
    const computed = [
      ...code.matchAll(/(?<![\w.])(\w+Subjects)\[/g),
      ...code.matchAll(/\b(readySubject|feedWakeSubject|subjectForEvent|publicEventsWakeSubject)\((?!')/g),
    ].map((m) => `${service} ${m[1]}${m[0].at(-1)}`);
    for (const key of computed) {
      // A category's publisher names its events by their stored type: checked per category instead.
      if (key.endsWith(' subjectForEvent(')) continue;
      const subjects = DYNAMIC[key];
      if (!subjects) usage.unknown.push(`${file}: ${key}`);
      else for (const subject of subjects) {
        if (subject.includes('.evt.')) usage.events.add(subject);
        else add(subject);
      }
    }
  }
  return usage;
}
