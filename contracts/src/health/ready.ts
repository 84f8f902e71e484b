import { z } from 'zod';
import { defineSubject, SUBJECT_PREFIX } from '../bus/subject.js';
import { ReadinessCheck } from './http.js';

/**
 * Readiness over the bus: each service answers `sb.v1.<service>.ready` in its queue group, so
 * the gateway's `/readyz` learns that at least one replica of every service is up and ready
 * (event store reachable, read models caught up). One subject per service rather than one shared
 * subject: a request/reply takes the first answer only, so a shared subject could not tell which
 * service is missing.
 */
export const ReadyRequest = z.object({});
export type ReadyRequest = z.infer<typeof ReadyRequest>;

/** `details`: the service's own checks by stable name (`eventStore`, `readModels`, …). */
export const ReadyReply = z.object({
  service: z.string().min(1),
  ready: z.boolean(),
  details: z.record(z.string(), ReadinessCheck),
});
export type ReadyReply = z.infer<typeof ReadyReply>;

/** The services behind the gateway, in the order `/readyz` reports them. */
export const BACKEND_SERVICES = ['sessions', 'messaging', 'quota', 'events'] as const;
export type BackendService = (typeof BACKEND_SERVICES)[number];

/** `sb.v1.<service>.ready` for any service name (a future service needs no contract change). */
export function readySubject(service: string) {
  return defineSubject(`${SUBJECT_PREFIX}.${service}.ready`, ReadyRequest, ReadyReply);
}

/** The ready subject of each backend service: `ReadySubjects.quota.subject` = `sb.v1.quota.ready`. */
export const ReadySubjects = {
  sessions: readySubject('sessions'),
  messaging: readySubject('messaging'),
  quota: readySubject('quota'),
  events: readySubject('events'),
} as const satisfies Record<BackendService, ReturnType<typeof readySubject>>;
