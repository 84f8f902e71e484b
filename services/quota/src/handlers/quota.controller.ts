import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { QuotaSubjects, ReadySubjects, validationError } from '@switchboard/contracts';
import type { ReadyReply } from '@switchboard/contracts';
import type { z } from 'zod';
import type { BusContext } from '@switchboard/bus';
import { QuotaApi } from '../application/quota-api.js';
import type { CallContext } from '../application/quota-core.js';

const S = QuotaSubjects;

/** Parses a bus request with its contract schema: VALIDATION_ERROR with every problem otherwise. */
function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

function callOf(ctx: BusContext): CallContext {
  const headers = ctx.getHeaders();
  return { correlationId: headers['correlation-id'], causationId: headers['causation-id'] };
}

/** What `sb.v1.quota.ready` answers: read models caught up, bus connected. */
export type QuotaReadiness = () => ReadyReply;
export const QUOTA_READINESS = Symbol('QuotaReadiness');

/** Every `QuotaSubjects` request, bound to the quota API (queue group `quota`). */
@Controller()
export class QuotaController {
  constructor(
    @Inject(QuotaApi) private readonly api: QuotaApi,
    @Inject(QUOTA_READINESS) private readonly readiness: QuotaReadiness,
  ) {}

  @MessagePattern(ReadySubjects.quota.subject)
  ready(): ReadyReply {
    return this.readiness();
  }

  @MessagePattern(S.authenticate.subject)
  authenticate(@Payload() body: unknown) {
    return this.api.authenticate(parse(S.authenticate.request, body));
  }

  @MessagePattern(S.reserveSession.subject)
  reserveSession(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.reserveSession(parse(S.reserveSession.request, body), callOf(ctx));
  }

  @MessagePattern(S.releaseSession.subject)
  releaseSession(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.releaseSession(parse(S.releaseSession.request, body), callOf(ctx));
  }

  @MessagePattern(S.reserveDaily.subject)
  reserveDaily(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.reserveDaily(parse(S.reserveDaily.request, body), callOf(ctx));
  }

  @MessagePattern(S.refundDaily.subject)
  refundDaily(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.refundDaily(parse(S.refundDaily.request, body), callOf(ctx));
  }

  @MessagePattern(S.accounts.create.subject)
  createAccount(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.createAccount(parse(S.accounts.create.request, body), callOf(ctx));
  }

  @MessagePattern(S.accounts.get.subject)
  getAccount(@Payload() body: unknown) {
    return this.api.getAccount(parse(S.accounts.get.request, body));
  }

  @MessagePattern(S.accounts.list.subject)
  listAccounts(@Payload() body: unknown) {
    return this.api.listAccounts(parse(S.accounts.list.request, body));
  }

  @MessagePattern(S.accounts.update.subject)
  updateAccount(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.updateAccount(parse(S.accounts.update.request, body), callOf(ctx));
  }

  @MessagePattern(S.accounts.close.subject)
  closeAccount(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.closeAccount(parse(S.accounts.close.request, body), callOf(ctx));
  }

  @MessagePattern(S.keys.create.subject)
  createKey(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.createKey(parse(S.keys.create.request, body), callOf(ctx));
  }

  @MessagePattern(S.keys.list.subject)
  listKeys(@Payload() body: unknown) {
    return this.api.listKeys(parse(S.keys.list.request, body));
  }

  @MessagePattern(S.keys.revoke.subject)
  revokeKey(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.api.revokeKey(parse(S.keys.revoke.request, body), callOf(ctx));
  }
}
