import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EventsSubjects, ReadySubjects, validationError } from '@switchboard/contracts';
import type { SubjectContract } from '@switchboard/contracts';
import type { z } from 'zod';
import { EventsApi } from './events-api.js';

const S = EventsSubjects;

/** Bus messages are parsed at the boundary; a malformed one is a VALIDATION_ERROR, not a crash. */
function parse<C extends SubjectContract>(contract: C, body: unknown): z.output<C['request']> {
  const parsed = contract.request.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data as z.output<C['request']>;
}

/** Every `EventsSubjects` request, bound to the events API (queue group `events`). */
@Controller()
export class EventsController {
  constructor(@Inject(EventsApi) private readonly api: EventsApi) {}

  @MessagePattern(S.createWebhook.subject)
  createWebhook(@Payload() body: unknown) {
    const request = parse(S.createWebhook, body);
    return this.api.createWebhook(request.accountId, request.body);
  }

  @MessagePattern(S.listWebhooks.subject)
  listWebhooks(@Payload() body: unknown) {
    return this.api.listWebhooks(parse(S.listWebhooks, body).accountId);
  }

  @MessagePattern(S.getWebhook.subject)
  getWebhook(@Payload() body: unknown) {
    return this.api.getWebhook(parse(S.getWebhook, body));
  }

  @MessagePattern(S.updateWebhook.subject)
  updateWebhook(@Payload() body: unknown) {
    const { body: changes, ...ref } = parse(S.updateWebhook, body);
    return this.api.updateWebhook(ref, changes);
  }

  @MessagePattern(S.deleteWebhook.subject)
  deleteWebhook(@Payload() body: unknown) {
    return this.api.deleteWebhook(parse(S.deleteWebhook, body));
  }

  @MessagePattern(S.rotateSecret.subject)
  rotateSecret(@Payload() body: unknown) {
    return this.api.rotateSecret(parse(S.rotateSecret, body));
  }

  @MessagePattern(S.listDeliveries.subject)
  listDeliveries(@Payload() body: unknown) {
    return this.api.listDeliveries(parse(S.listDeliveries, body));
  }

  @MessagePattern(S.replay.subject)
  replay(@Payload() body: unknown) {
    const { body: window, ...ref } = parse(S.replay, body);
    return this.api.replay(ref, window);
  }

  @MessagePattern(S.test.subject)
  test(@Payload() body: unknown) {
    return this.api.test(parse(S.test, body));
  }

  @MessagePattern(S.readStream.subject)
  readStream(@Payload() body: unknown) {
    return this.api.readStream(parse(S.readStream, body));
  }

  @MessagePattern(ReadySubjects.events.subject)
  ready() {
    return this.api.readiness();
  }
}
