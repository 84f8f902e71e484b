import { Controller, Inject, Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { FeedSubjects, ReadySubjects, SessionsSubjects, subjectForEvent, validationError } from '@switchboard/contracts';
import type { ReplyOf, RequestOf, SubjectContract } from '@switchboard/contracts';
import type { SessionsApi } from './api.js';

const SESSIONS_API = Symbol('SessionsApi');

/** Bus messages are parsed at the boundary; a malformed one is a VALIDATION_ERROR, not a crash. */
function parse<C extends SubjectContract>(contract: C, data: unknown): RequestOf<C> {
  const parsed = contract.request.safeParse(data);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data as RequestOf<C>;
}

type Reply<C extends SubjectContract> = ReplyOf<C> | Promise<ReplyOf<C>>;

@Controller()
export class SessionsController {
  constructor(@Inject(SESSIONS_API) private readonly api: SessionsApi) {}

  @MessagePattern(SessionsSubjects.create.subject)
  create(@Payload() data: unknown): Reply<typeof SessionsSubjects.create> {
    return this.api.create(parse(SessionsSubjects.create, data));
  }

  @MessagePattern(SessionsSubjects.get.subject)
  get(@Payload() data: unknown): Reply<typeof SessionsSubjects.get> {
    return this.api.get(parse(SessionsSubjects.get, data));
  }

  @MessagePattern(SessionsSubjects.list.subject)
  list(@Payload() data: unknown): Reply<typeof SessionsSubjects.list> {
    return this.api.list(parse(SessionsSubjects.list, data));
  }

  @MessagePattern(SessionsSubjects.delete.subject)
  delete(@Payload() data: unknown): Reply<typeof SessionsSubjects.delete> {
    return this.api.delete(parse(SessionsSubjects.delete, data));
  }

  @MessagePattern(SessionsSubjects.deleteAll.subject)
  deleteAll(@Payload() data: unknown): Reply<typeof SessionsSubjects.deleteAll> {
    return this.api.deleteAll(parse(SessionsSubjects.deleteAll, data));
  }

  /** One replica per fact (the queue group), as a request would be: two would race to log one device out. */
  @EventPattern(subjectForEvent('AccountClosed'), { queue: 'sessions' })
  accountClosed(@Payload() data: unknown): Promise<void> {
    return this.api.accountClosed(data);
  }

  @MessagePattern(SessionsSubjects.qr.subject)
  qr(@Payload() data: unknown): Reply<typeof SessionsSubjects.qr> {
    return this.api.qr(parse(SessionsSubjects.qr, data));
  }

  @MessagePattern(SessionsSubjects.send.subject)
  send(@Payload() data: unknown): Reply<typeof SessionsSubjects.send> {
    return this.api.send(parse(SessionsSubjects.send, data));
  }

  @MessagePattern(FeedSubjects.sessions.subject)
  feed(@Payload() data: unknown): Reply<typeof FeedSubjects.sessions> {
    return this.api.feed(parse(FeedSubjects.sessions, data));
  }

  @MessagePattern(ReadySubjects.sessions.subject)
  ready(): Reply<typeof ReadySubjects.sessions> {
    return this.api.readiness();
  }
}

/** The Nest module of the sessions service, bound to one SessionsApi instance. */
@Module({})
export class SessionsModule {
  static forApi(api: SessionsApi): DynamicModule {
    return { module: SessionsModule, controllers: [SessionsController], providers: [{ provide: SESSIONS_API, useValue: api }] };
  }
}
