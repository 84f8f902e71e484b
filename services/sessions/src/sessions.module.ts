import { Controller, Inject, Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { FeedSubjects, ReadySubjects, SessionsSubjects, subjectForEvent } from '@switchboard/contracts';
import type { ReplyOf, SubjectContract } from '@switchboard/contracts';
import { parseRequest } from '@switchboard/bus';
import type { BusContext, BusMessage } from '@switchboard/bus';
import type { SessionsApi } from './api.js';
import type { RoutedVerb, SessionRouter } from './replicas/session-router.js';

const SESSIONS_API = Symbol('SessionsApi');
const SESSION_ROUTER = Symbol('SessionRouter');

type Reply<C extends SubjectContract> = ReplyOf<C> | Promise<ReplyOf<C>>;

@Controller()
export class SessionsController {
  constructor(
    @Inject(SESSIONS_API) private readonly api: SessionsApi,
    @Inject(SESSION_ROUTER) private readonly router: SessionRouter,
  ) {}

  /** Parsed by the replica that places it (its id is minted there). */
  @MessagePattern(SessionsSubjects.create.subject)
  create(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.create> {
    const message = ctx.getMessage();
    return this.router.create(message, () => this.api.create(parseRequest(SessionsSubjects.create, message)));
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
    const ref = parseRequest(SessionsSubjects.delete, ctx.getMessage());
    return this.router.session('delete', ref.sessionId, ctx.getMessage(), () => this.api.delete(ref));
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
    const ref = parseRequest(SessionsSubjects.qr, ctx.getMessage());
    return this.router.session('qr', ref.sessionId, ctx.getMessage(), () => this.api.qr(ref));
  }

  @MessagePattern(SessionsSubjects.contact.subject)
  contact(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.contact> {
    const request = parseRequest(SessionsSubjects.contact, ctx.getMessage());
    return this.router.session('contact', request.sessionId, ctx.getMessage(), () => this.api.contact(request));
  }

  @MessagePattern(SessionsSubjects.send.subject)
  send(@Ctx() ctx: BusContext): Reply<typeof SessionsSubjects.send> {
    const command = parseRequest(SessionsSubjects.send, ctx.getMessage());
    return this.router.session('send', command.sessionId, ctx.getMessage(), () => this.api.send(command));
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

/** A request another replica forwarded to this one's own subject (it owns the session, or did): parsed at this edge. */
export async function answerHere(api: SessionsApi, router: SessionRouter, verb: RoutedVerb, message: BusMessage): Promise<unknown> {
  switch (verb) {
    case 'create':
      return api.create(parseRequest(SessionsSubjects.create, message));
    case 'qr': {
      const ref = parseRequest(SessionsSubjects.qr, message);
      return router.session('qr', ref.sessionId, message, () => api.qr(ref));
    }
    case 'delete': {
      const ref = parseRequest(SessionsSubjects.delete, message);
      return router.session('delete', ref.sessionId, message, () => api.delete(ref));
    }
    case 'contact': {
      const request = parseRequest(SessionsSubjects.contact, message);
      return router.session('contact', request.sessionId, message, () => api.contact(request));
    }
    case 'send': {
      const command = parseRequest(SessionsSubjects.send, message);
      return router.session('send', command.sessionId, message, () => api.send(command));
    }
  }
}

/** The Nest module of the sessions service, bound to one SessionsApi instance and its router. */
@Module({})
export class SessionsModule {
  static forApi(api: SessionsApi, router: SessionRouter): DynamicModule {
    return {
      module: SessionsModule,
      controllers: [SessionsController],
      providers: [
        { provide: SESSIONS_API, useValue: api },
        { provide: SESSION_ROUTER, useValue: router },
      ],
    };
  }
}
