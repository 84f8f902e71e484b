import { defineSubject } from '../bus/subject.js';
import { ContactCheck, ListSessionsResult, SessionQrResult, SessionView } from './http.js';
import {
  ContactCheckRequest,
  CreateSessionCommand,
  CreateSessionReply,
  DeleteAllSessionsReply,
  DeleteAllSessionsRequest,
  DeleteSessionReply,
  DeliverMessageCommand,
  DeliverMessageReply,
  ListSessionsRequest,
  SessionRef,
} from './commands.js';

/** Request/reply subjects of the sessions service (queue group `sb.v1.sessions`). */
export const SessionsSubjects = {
  create: defineSubject('sb.v1.sessions.create', CreateSessionCommand, CreateSessionReply),
  get: defineSubject('sb.v1.sessions.get', SessionRef, SessionView),
  list: defineSubject('sb.v1.sessions.list', ListSessionsRequest, ListSessionsResult),
  delete: defineSubject('sb.v1.sessions.delete', SessionRef, DeleteSessionReply),
  qr: defineSubject('sb.v1.sessions.qr', SessionRef, SessionQrResult),
  send: defineSubject('sb.v1.sessions.send', DeliverMessageCommand, DeliverMessageReply),
  deleteAll: defineSubject('sb.v1.sessions.deleteAll', DeleteAllSessionsRequest, DeleteAllSessionsReply),
  contact: defineSubject('sb.v1.sessions.contact', ContactCheckRequest, ContactCheck),
} as const;
