import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { SessionStatus } from '@switchboard/contracts';
import { inReadTransaction } from '@switchboard/eventstore';
import type { ListSessionsRequest, ListSessionsResult, SessionView } from '@switchboard/contracts';
import { fromDb } from './projection.js';
import type { DbRow } from './projection.js';

/** A session some process must look after: its id, owner and status. */
export interface TrackedSession {
  sessionId: string;
  accountId: string;
  status: SessionStatus;
}

/** Reads of the session list read model; every query is scoped to one account. */
export class SessionListQueries {
  private readonly byId: StatementSync;
  /** Prepared once per SQL text: the list's filters make a few variants, each read many times. */
  private readonly statements = new Map<string, StatementSync>();

  constructor(private readonly db: DatabaseSync) {
    this.byId = db.prepare('SELECT * FROM session_list WHERE session_id = ? AND account_id = ?');
  }

  private statement(sql: string): StatementSync {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** The session, or undefined when it is unknown, deleted, or another account's. */
  get(accountId: string, sessionId: string): SessionView | undefined {
    const row = this.byId.get(sessionId, accountId) as DbRow | undefined;
    return row ? view(row) : undefined;
  }

  /** Newest first; `total` counts every match, not just the page. */
  list(request: ListSessionsRequest): ListSessionsResult {
    const filter = request.status === undefined ? '' : ' AND status = ?';
    const params = request.status === undefined ? [request.accountId] : [request.accountId, request.status];
    const count = this.statement(`SELECT count(*) AS n FROM session_list WHERE account_id = ?${filter}`);
    const page = this.statement(`SELECT * FROM session_list WHERE account_id = ?${filter} ORDER BY created_at DESC, session_id DESC LIMIT ? OFFSET ?`);
    // One snapshot: the total counts the very rows the page is cut from.
    const [total, rows] = inReadTransaction(this.db, () => [
      count.get(...params) as { n: number },
      page.all(...params, request.limit, request.offset) as unknown as DbRow[],
    ] as const);
    return { sessions: rows.map(view), total: Number(total.n), limit: request.limit, offset: request.offset };
  }

  /** How many sessions are in each status, every status listed (0 included): the sessions gauge. */
  countsByStatus(): [{ state: SessionStatus }, number][] {
    const rows = this.statement('SELECT status, count(*) AS n FROM session_list GROUP BY status').all() as { status: string; n: number }[];
    const counts = new Map(rows.map((row) => [row.status, Number(row.n)]));
    return SessionStatus.options.map((state) => [{ state }, counts.get(state) ?? 0]);
  }

  /** Every session (of every account) in one of `statuses`: what a restart must pick up again. */
  /** The status of a session on record, whatever its account (undefined: unknown). */
  statusOf(sessionId: string): SessionStatus | undefined {
    const row = this.statement('SELECT status FROM session_list WHERE session_id = ?').get(sessionId) as Pick<DbRow, 'status'> | undefined;
    return row?.status as SessionStatus | undefined;
  }

  withStatus(statuses: readonly SessionStatus[]): TrackedSession[] {
    const marks = statuses.map(() => '?').join(', ');
    const rows = this
      .statement(`SELECT session_id, account_id, status FROM session_list WHERE status IN (${marks}) ORDER BY created_at`)
      .all(...statuses) as unknown as Pick<DbRow, 'session_id' | 'account_id' | 'status'>[];
    return rows.map((r) => ({ sessionId: r.session_id, accountId: r.account_id, status: r.status as SessionStatus }));
  }
}

function view(row: DbRow): SessionView {
  const { accountId: _owner, ...rest } = fromDb(row);
  return rest;
}
