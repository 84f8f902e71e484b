import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { FeedSubjects, MessagingSubjects, ReadySubjects, validationError } from '@switchboard/contracts';
import type { BusContext } from '@switchboard/bus';
import type { z } from 'zod';
import type { SendRequest } from '../send/prepare.js';
import { MessagingApi } from './messaging-api.js';

const S = MessagingSubjects;

/** Parses a bus request with its contract schema: VALIDATION_ERROR with every problem otherwise. */
function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

type SendSubject = typeof S.sendText | typeof S.sendMedia | typeof S.sendLocation | typeof S.sendButtons;

/** Every `MessagingSubjects` request, bound to the messaging API (queue group `messaging`). */
@Controller()
export class MessagingController {
  constructor(@Inject(MessagingApi) private readonly api: MessagingApi) {}

  @MessagePattern(S.sendText.subject)
  sendText(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.send(S.sendText, 'text', body, ctx);
  }

  @MessagePattern(S.sendMedia.subject)
  sendMedia(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.send(S.sendMedia, 'media', body, ctx);
  }

  @MessagePattern(S.sendLocation.subject)
  sendLocation(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.send(S.sendLocation, 'location', body, ctx);
  }

  @MessagePattern(S.sendButtons.subject)
  sendButtons(@Payload() body: unknown, @Ctx() ctx: BusContext) {
    return this.send(S.sendButtons, 'buttons', body, ctx);
  }

  @MessagePattern(S.get.subject)
  get(@Payload() body: unknown) {
    return this.api.get(parse(S.get.request, body));
  }

  @MessagePattern(S.recordInbound.subject)
  recordInbound(@Payload() body: unknown) {
    return this.api.recordInbound(parse(S.recordInbound.request, body));
  }

  @MessagePattern(S.history.subject)
  history(@Payload() body: unknown) {
    return this.api.history(parse(S.history.request, body));
  }

  @MessagePattern(S.media.subject)
  media(@Payload() body: unknown) {
    return this.api.media(parse(S.media.request, body));
  }

  @MessagePattern(S.recordReceipt.subject)
  recordReceipt(@Payload() body: unknown) {
    return this.api.recordReceipt(parse(S.recordReceipt.request, body));
  }

  @MessagePattern(FeedSubjects.messaging.subject)
  feed(@Payload() body: unknown) {
    return this.api.feed(parse(FeedSubjects.messaging.request, body));
  }

  @MessagePattern(ReadySubjects.messaging.subject)
  ready() {
    return this.api.readiness();
  }

  private send(subject: SendSubject, kind: SendRequest['kind'], body: unknown, ctx: BusContext) {
    const command = parse(subject.request, body);
    const request = { kind, body: command.body } as SendRequest;
    return this.api.send(request, {
      accountId: command.accountId,
      idempotency: command.idempotency,
      correlationId: ctx.getHeaders()['correlation-id'],
    });
  }
}
