import type { z } from 'zod';

/** Subject prefix of version 1 of the bus protocol. */
export const SUBJECT_PREFIX = 'sb.v1';

/**
 * A request/reply subject and its contract: `request` validates what a handler receives,
 * `reply` validates the `data` of a successful reply (wrap it with `busReply` for the envelope).
 * Bus messages strip unknown keys instead of rejecting them, so a newer caller can add a field
 * during a rolling upgrade without breaking an older handler.
 */
export interface SubjectContract<S extends string = string, Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly subject: S;
  readonly request: Req;
  readonly reply: Rep;
}

export function defineSubject<S extends string, Req extends z.ZodType, Rep extends z.ZodType>(
  subject: S,
  request: Req,
  reply: Rep,
): SubjectContract<S, Req, Rep> {
  return { subject, request, reply };
}

/** What a caller sends (before parsing defaults). */
export type RequestInput<C extends SubjectContract> = z.input<C['request']>;
/** What a handler receives after parsing. */
export type RequestOf<C extends SubjectContract> = z.output<C['request']>;
/** The `data` of a successful reply. */
export type ReplyOf<C extends SubjectContract> = z.output<C['reply']>;

/** Queue group shared by the replicas of one service, so each request is handled once. */
export function queueGroup(service: string): string {
  return `${SUBJECT_PREFIX}.${service}`;
}
