import { sessionStream } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import { currentInboundHeaders } from '@switchboard/bus';
import { eventMetadata, executeCommand, loadAggregate } from '@switchboard/service-kit';
import type { CommandResult, ProjectionRunner } from '@switchboard/service-kit';
import type { SessionEvent } from '@switchboard/contracts';
import type { SessionCommand } from '../session/commands.js';
import { decide } from '../session/decide.js';
import { sessionFold } from '../session/fold.js';
import type { Session } from '../session/state.js';

/** How long a handler waits for the read model to show its own write before answering anyway. */
const READ_YOUR_WRITES_MS = 5_000;

/**
 * The session handler loop (STYLE.md): read the stream, fold, decide, append with the expected
 * revision (retried on conflict by service-kit), then wait until the list read model shows the
 * write, so a GET right after a create or delete sees it.
 */
export class SessionCommands {
  constructor(
    private readonly store: EventStore,
    private readonly readModel: ProjectionRunner,
    private readonly clock: () => Date,
  ) {}

  async load(sessionId: string): Promise<Session> {
    return (await loadAggregate(this.store, sessionStream(sessionId), sessionFold)).state;
  }

  async execute(sessionId: string, accountId: string, command: SessionCommand): Promise<CommandResult<Session, SessionEvent>> {
    const now = this.clock();
    const inbound = currentInboundHeaders();
    const metadata = eventMetadata({ accountId, correlationId: inbound?.['correlation-id'], now });
    const result = await executeCommand(this.store, sessionStream(sessionId), sessionFold, (state) => decide({ ...command, now }, state), metadata);
    if (result.position !== undefined) await this.visible(result.position);
    return result;
  }

  private async visible(position: bigint): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, READ_YOUR_WRITES_MS)));
    await Promise.race([this.readModel.waitForPosition(position), bound]);
    clearTimeout(timer);
  }
}
