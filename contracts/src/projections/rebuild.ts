import { z } from 'zod';
import { SUBJECT_PREFIX } from '../bus/subject.js';

/**
 * The read models each service keeps in SQLite and can rebuild from its streams while it serves
 * reads from the old ones (`switchboard projections rebuild`). Quota has none here: each quota
 * process keeps its read models in memory and rebuilds them from zero whenever it starts.
 */
export const REBUILDABLE_PROJECTIONS = {
  sessions: ['session-list'],
  messaging: ['message-status', 'message-history'],
  events: ['webhooks'],
} as const;

/** A service with rebuildable read models. */
export type RebuildableService = keyof typeof REBUILDABLE_PROJECTIONS;
export const RebuildableService = z.enum(Object.keys(REBUILDABLE_PROJECTIONS) as [RebuildableService, ...RebuildableService[]]);

/** A read model by the name the CLI gives it (`message-status`); unique across services. */
export const ProjectionName = z.enum([...REBUILDABLE_PROJECTIONS.sessions, ...REBUILDABLE_PROJECTIONS.messaging, ...REBUILDABLE_PROJECTIONS.events]);
export type ProjectionName = z.infer<typeof ProjectionName>;

/** The service that keeps `projection`. */
export function serviceOfProjection(projection: ProjectionName): RebuildableService {
  return (Object.keys(REBUILDABLE_PROJECTIONS) as RebuildableService[]).find((service) =>
    (REBUILDABLE_PROJECTIONS[service] as readonly string[]).includes(projection))!;
}

/** A token that is safe inside a subject: names one rebuild run and the subject its reports go to. */
const RunId = z.string().regex(/^[0-9A-Za-z]{10,40}$/);

/**
 * Published (not a queue-group request) to `sb.v1.<service>.projections.rebuild`: every replica
 * rebuilds its own read models (each keeps them on its own disk) and reports on
 * `projectionRebuildReportSubject(runId)`. No `projections`: all of the service's.
 */
export const ProjectionRebuildRequest = z.object({ runId: RunId, projections: z.array(ProjectionName).min(1).optional() });
export type ProjectionRebuildRequest = z.infer<typeof ProjectionRebuildRequest>;

export const projectionRebuildSubject = (service: RebuildableService): string => `${SUBJECT_PREFIX}.${service}.projections.rebuild`;
/** Published facts about one run (`sb.v1.evt.rebuild.<runId>`), heard by the CLI that started it. */
export const projectionRebuildReportSubject = (runId: string): string => `${SUBJECT_PREFIX}.evt.rebuild.${runId}`;

/** What one rebuild did: the events applied, how fast, and the rows of each table it swapped in. */
export const ProjectionRebuildResult = z.object({
  projection: ProjectionName,
  events: z.number().int().nonnegative(),
  seconds: z.number().nonnegative(),
  eventsPerSecond: z.number().nonnegative(),
  /** The store position the new read model was swapped in at (a string: positions are 64-bit); null for an empty category. */
  position: z.string().nullable(),
  rows: z.record(z.string(), z.number().int().nonnegative()),
  /** How long the swap held the read model's write lock (readers never wait for it). */
  swapMs: z.number().nonnegative(),
});
export type ProjectionRebuildResult = z.infer<typeof ProjectionRebuildResult>;

const reportOf = <P extends string, S extends z.ZodRawShape>(phase: P, shape: S) =>
  z.object({ phase: z.literal(phase), runId: RunId, service: RebuildableService, replica: z.string().min(1).max(200), ...shape });

/**
 * What a replica reports while it rebuilds, in order: `started` (the projections it will rebuild),
 * `progress` now and then, `rebuilt` or `failed` for each projection, then `finished`.
 */
export const ProjectionRebuildReport = z.discriminatedUnion('phase', [
  reportOf('started', { projections: z.array(ProjectionName) }),
  reportOf('progress', { projection: ProjectionName, events: z.number().int().nonnegative(), total: z.number().int().nonnegative(), seconds: z.number().nonnegative() }),
  reportOf('rebuilt', { result: ProjectionRebuildResult }),
  reportOf('failed', { projection: ProjectionName, message: z.string() }),
  reportOf('finished', {}),
]);
export type ProjectionRebuildReport = z.infer<typeof ProjectionRebuildReport>;
