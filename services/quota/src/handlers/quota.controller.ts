import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern } from '@nestjs/microservices';
import { QuotaSubjects, ReadySubjects } from '@switchboard/contracts';
import type { ReadyReply } from '@switchboard/contracts';
import { parseRequest } from '@switchboard/bus';
import type { BusContext } from '@switchboard/bus';
import { QuotaApi } from '../application/quota-api.js';
import type { CallContext } from '../application/quota-core.js';

const S = QuotaSubjects;

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
  authenticate(@Ctx() ctx: BusContext) {
    return this.api.authenticate(parseRequest(S.authenticate, ctx.getMessage()));
  }

  @MessagePattern(S.reserveSession.subject)
  reserveSession(@Ctx() ctx: BusContext) {
    return this.api.reserveSession(parseRequest(S.reserveSession, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.releaseSession.subject)
  releaseSession(@Ctx() ctx: BusContext) {
    return this.api.releaseSession(parseRequest(S.releaseSession, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.reserveDaily.subject)
  reserveDaily(@Ctx() ctx: BusContext) {
    return this.api.reserveDaily(parseRequest(S.reserveDaily, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.refundDaily.subject)
  refundDaily(@Ctx() ctx: BusContext) {
    return this.api.refundDaily(parseRequest(S.refundDaily, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.accounts.create.subject)
  createAccount(@Ctx() ctx: BusContext) {
    return this.api.createAccount(parseRequest(S.accounts.create, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.accounts.get.subject)
  getAccount(@Ctx() ctx: BusContext) {
    return this.api.getAccount(parseRequest(S.accounts.get, ctx.getMessage()));
  }

  @MessagePattern(S.accounts.list.subject)
  listAccounts(@Ctx() ctx: BusContext) {
    return this.api.listAccounts(parseRequest(S.accounts.list, ctx.getMessage()));
  }

  @MessagePattern(S.accounts.update.subject)
  updateAccount(@Ctx() ctx: BusContext) {
    return this.api.updateAccount(parseRequest(S.accounts.update, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.accounts.close.subject)
  closeAccount(@Ctx() ctx: BusContext) {
    return this.api.closeAccount(parseRequest(S.accounts.close, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.keys.create.subject)
  createKey(@Ctx() ctx: BusContext) {
    return this.api.createKey(parseRequest(S.keys.create, ctx.getMessage()), callOf(ctx));
  }

  @MessagePattern(S.keys.list.subject)
  listKeys(@Ctx() ctx: BusContext) {
    return this.api.listKeys(parseRequest(S.keys.list, ctx.getMessage()));
  }

  @MessagePattern(S.keys.revoke.subject)
  revokeKey(@Ctx() ctx: BusContext) {
    return this.api.revokeKey(parseRequest(S.keys.revoke, ctx.getMessage()), callOf(ctx));
  }
}
