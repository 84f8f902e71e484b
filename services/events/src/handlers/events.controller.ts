import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern } from '@nestjs/microservices';
import { EventsSubjects, ReadySubjects } from '@switchboard/contracts';
import { parseRequest } from '@switchboard/bus';
import type { BusContext } from '@switchboard/bus';
import { EventsApi } from './events-api.js';

const S = EventsSubjects;

/** Every `EventsSubjects` request, bound to the events API (queue group `events`). */
@Controller()
export class EventsController {
  constructor(@Inject(EventsApi) private readonly api: EventsApi) {}

  @MessagePattern(S.createWebhook.subject)
  createWebhook(@Ctx() ctx: BusContext) {
    return this.api.createWebhook(parseRequest(S.createWebhook, ctx.getMessage()));
  }

  @MessagePattern(S.listWebhooks.subject)
  listWebhooks(@Ctx() ctx: BusContext) {
    return this.api.listWebhooks(parseRequest(S.listWebhooks, ctx.getMessage()).accountId);
  }

  @MessagePattern(S.getWebhook.subject)
  getWebhook(@Ctx() ctx: BusContext) {
    return this.api.getWebhook(parseRequest(S.getWebhook, ctx.getMessage()));
  }

  @MessagePattern(S.updateWebhook.subject)
  updateWebhook(@Ctx() ctx: BusContext) {
    const { body: changes, ...ref } = parseRequest(S.updateWebhook, ctx.getMessage());
    return this.api.updateWebhook(ref, changes);
  }

  @MessagePattern(S.deleteWebhook.subject)
  deleteWebhook(@Ctx() ctx: BusContext) {
    return this.api.deleteWebhook(parseRequest(S.deleteWebhook, ctx.getMessage()));
  }

  @MessagePattern(S.rotateSecret.subject)
  rotateSecret(@Ctx() ctx: BusContext) {
    return this.api.rotateSecret(parseRequest(S.rotateSecret, ctx.getMessage()));
  }

  @MessagePattern(S.listDeliveries.subject)
  listDeliveries(@Ctx() ctx: BusContext) {
    return this.api.listDeliveries(parseRequest(S.listDeliveries, ctx.getMessage()));
  }

  @MessagePattern(S.replay.subject)
  replay(@Ctx() ctx: BusContext) {
    const { body: window, ...ref } = parseRequest(S.replay, ctx.getMessage());
    return this.api.replay(ref, window);
  }

  @MessagePattern(S.test.subject)
  test(@Ctx() ctx: BusContext) {
    return this.api.test(parseRequest(S.test, ctx.getMessage()));
  }

  @MessagePattern(S.readStream.subject)
  readStream(@Ctx() ctx: BusContext) {
    return this.api.readStream(parseRequest(S.readStream, ctx.getMessage()));
  }

  @MessagePattern(S.eraseContents.subject)
  eraseContents(@Ctx() ctx: BusContext) {
    return this.api.eraseContents(parseRequest(S.eraseContents, ctx.getMessage()));
  }

  @MessagePattern(ReadySubjects.events.subject)
  ready() {
    return this.api.readiness();
  }
}
