import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern } from '@nestjs/microservices';
import { FeedSubjects, MessagingSubjects, ReadySubjects } from '@switchboard/contracts';
import { parseRequest } from '@switchboard/bus';
import type { BusContext } from '@switchboard/bus';
import type { SendRequest } from '../send/prepare.js';
import { MessagingApi } from './messaging-api.js';

const S = MessagingSubjects;

type SendSubject = typeof S.sendText | typeof S.sendMedia | typeof S.sendLocation | typeof S.sendButtons | typeof S.sendPoll;

/** Every `MessagingSubjects` request, bound to the messaging API (queue group `messaging`). */
@Controller()
export class MessagingController {
  constructor(@Inject(MessagingApi) private readonly api: MessagingApi) {}

  @MessagePattern(S.sendText.subject)
  sendText(@Ctx() ctx: BusContext) {
    return this.send(S.sendText, 'text', ctx);
  }

  @MessagePattern(S.sendMedia.subject)
  sendMedia(@Ctx() ctx: BusContext) {
    return this.send(S.sendMedia, 'media', ctx);
  }

  @MessagePattern(S.sendLocation.subject)
  sendLocation(@Ctx() ctx: BusContext) {
    return this.send(S.sendLocation, 'location', ctx);
  }

  @MessagePattern(S.sendButtons.subject)
  sendButtons(@Ctx() ctx: BusContext) {
    return this.send(S.sendButtons, 'buttons', ctx);
  }

  @MessagePattern(S.sendPoll.subject)
  sendPoll(@Ctx() ctx: BusContext) {
    return this.send(S.sendPoll, 'poll', ctx);
  }

  @MessagePattern(S.get.subject)
  get(@Ctx() ctx: BusContext) {
    return this.api.get(parseRequest(S.get, ctx.getMessage()));
  }

  @MessagePattern(S.recordInbound.subject)
  recordInbound(@Ctx() ctx: BusContext) {
    return this.api.recordInbound(parseRequest(S.recordInbound, ctx.getMessage()));
  }

  @MessagePattern(S.history.subject)
  history(@Ctx() ctx: BusContext) {
    return this.api.history(parseRequest(S.history, ctx.getMessage()));
  }

  @MessagePattern(S.media.subject)
  media(@Ctx() ctx: BusContext) {
    return this.api.media(parseRequest(S.media, ctx.getMessage()));
  }

  @MessagePattern(S.eraseContents.subject)
  eraseContents(@Ctx() ctx: BusContext) {
    return this.api.eraseContents(parseRequest(S.eraseContents, ctx.getMessage()), ctx.getHeaders()['correlation-id']);
  }

  @MessagePattern(S.recordReceipts.subject)
  recordReceipts(@Ctx() ctx: BusContext) {
    return this.api.recordReceipts(parseRequest(S.recordReceipts, ctx.getMessage()));
  }

  @MessagePattern(S.sentContent.subject)
  sentContent(@Ctx() ctx: BusContext) {
    return this.api.sentContent(parseRequest(S.sentContent, ctx.getMessage()));
  }

  @MessagePattern(FeedSubjects.messaging.subject)
  feed(@Ctx() ctx: BusContext) {
    return this.api.feed(parseRequest(FeedSubjects.messaging, ctx.getMessage()));
  }

  @MessagePattern(ReadySubjects.messaging.subject)
  ready() {
    return this.api.readiness();
  }

  private send(subject: SendSubject, kind: SendRequest['kind'], ctx: BusContext) {
    const command = parseRequest(subject, ctx.getMessage());
    const request = { kind, body: command.body } as SendRequest;
    return this.api.send(request, {
      accountId: command.accountId,
      idempotency: command.idempotency,
      correlationId: ctx.getHeaders()['correlation-id'],
    });
  }
}
