import { Controller, Inject, Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { FeedSubjects, ReadySubjects, SessionsSubjects, subjectForEvent } from '@switchboard/contracts';
import type { ReplyOf, SubjectContract } from '@switchboard/contracts';
import { parseRequest } from '@switchboard/bus';
import type { BusContext } from '@switchboard/bus';
import type { SessionsApi } from './api.js';
import type { SessionRequests } from './session-requests.js';

const SESSIONS_API = Symbol('SessionsApi');
const SESSION_REQUESTS = Symbol('SessionRequests');

type Reply<C extends SubjectContract> = ReplyOf<C> | Promise<ReplyOf<C>>;

@Controller()
export class SessionsController {
  constructor(
    @Inject(SESSIONS_API) private readonly api: SessionsApi,
    @Inject(SESSION_REQUESTS) private readonly requests: SessionRequests,
  ) {}

  @MessagePattern(SessionsSubjects.create.subject)
  create(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.create> {
    return this.requests.create(ctx.getMessage());
  }

  @MessagePattern(SessionsSubjects.get.subject)
  get(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.get> {
    return this.api.get(parseRequest(SessionsSubjects.get, ctx.getMessage()));
  }

  @MessagePattern(SessionsSubjects.list.subject)
  list(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.list> {
    return this.api.list(parseRequest(SessionsSubjects.list, ctx.getMessage()));
  }

  @MessagePattern(SessionsSubjects.delete.subject)
  delete(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.delete> {
    return this.requests.delete(ctx.getMessage());
  }

  @MessagePattern(SessionsSubjects.deleteAll.subject)
  deleteAll(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.deleteAll> {
    return this.api.deleteAll(parseRequest(SessionsSubjects.deleteAll, ctx.getMessage()));
  }

  /** One replica per fact (the queue group), as a request would be: two would race to log one device out. */
  @EventPattern(subjectForEvent('AccountClosed'), { queue: 'sessions' })
  accountClosed(@Payload() data: unknown): Promise<void> {
    return this.api.accountClosed(data);
  }

  @MessagePattern(SessionsSubjects.qr.subject)
  qr(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.qr> {
    return this.requests.qr(ctx.getMessage());
  }

  @MessagePattern(SessionsSubjects.contact.subject)
  contact(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.contact> {
    return this.requests.contact(ctx.getMessage());
  }

  @MessagePattern(SessionsSubjects.send.subject)
  send(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.send> {
    return this.requests.send(ctx.getMessage());
  }

  @MessagePattern(FeedSubjects.sessions.subject)
  feed(@Ctx() ctx: BusContext): Reply<typeof FeedSubjects.sessions> {
    return this.api.feed(parseRequest(FeedSubjects.sessions, ctx.getMessage()));
  }

  @MessagePattern(ReadySubjects.sessions.subject)
  ready(): Reply<typeof ReadySubjects.sessions> {
    return this.api.readiness();
  }
}

/** The Nest module of the sessions service, bound to one SessionsApi instance and its routed requests. */
@Module({})
export class SessionsModule {
  static forApi(api: SessionsApi, requests: SessionRequests): DynamicModule {
    return {
      module: SessionsModule,
      controllers: [SessionsController],
      providers: [
        { provide: SESSIONS_API, useValue: api },
        { provide: SESSION_REQUESTS, useValue: requests },
      ],
    };
  }
}
