import { MessagingSubjects } from '../messaging/subjects.js';
import { QuotaSubjects } from '../quota/subjects.js';
import { SessionsSubjects } from '../sessions/subjects.js';
import { EventsSubjects } from '../webhooks/subjects.js';

/** Every request/reply subject, by service: `BUS_SUBJECTS.quota.accounts.create.subject`. */
export const BUS_SUBJECTS = {
  sessions: SessionsSubjects,
  messaging: MessagingSubjects,
  quota: QuotaSubjects,
  events: EventsSubjects,
} as const;
