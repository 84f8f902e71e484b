import type { BlobStore } from '@switchboard/blob-store';
import { DEFAULT_BLOB_TTL_MS, FolderBlobStore, lazyBlobStore } from '@switchboard/blob-store';
import { answerInProcess } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { MessagingSubjects } from '@switchboard/contracts';
import { serveProjectionRebuilds, startMicroservice } from '@switchboard/service-kit';
import type { RunningService } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
import { systemClock } from './application/clock.js';
import type { Clock } from './application/clock.js';
import { openMessagingEngine } from './engine.js';
import type { MessagingEngine, MessagingHooks, MessagingServiceConfig } from './engine.js';
import { MessagingModule } from './handlers/messaging.module.js';
import { MESSAGING_READ_MODELS } from './projections/read-models.js';
import type { MediaPolicy } from './media/resolve-media.js';

export interface StartMessagingServiceOptions {
  bus: Bus;
  config: MessagingServiceConfig;
  logger: Logger;
  clock?: Clock;
  /** The media blob store shared with sessions; by default the mode's (folder or NATS bucket), owned here. */
  blobStore?: BlobStore;
  media?: Partial<MediaPolicy>;
  hooks?: MessagingHooks;
}

export interface RunningMessagingService extends RunningService {
  readonly engine: MessagingEngine;
}

/**
 * Starts the messaging service: rebuilds the status read model, answers every
 * `sb.v1.messaging.*` request on the bus, then finishes what an earlier process left open.
 */
export async function startMessagingService(options: StartMessagingServiceOptions): Promise<RunningMessagingService> {
  const { bus, config, logger } = options;
  const ownsBlobs = options.blobStore === undefined;
  const blobs = options.blobStore ?? lazyBlobStore({ dataDir: config.dataDir, natsUrl: config.natsUrl, name: 'messaging-media' });
  let engine: MessagingEngine | undefined;
  let app: Awaited<ReturnType<typeof startMicroservice>> | undefined;
  try {
    engine = await openMessagingEngine({ bus, config, logger, clock: options.clock ?? systemClock, blobs, media: options.media, hooks: options.hooks });
    app = await startMicroservice(MessagingModule.with(engine.api), { bus, queue: 'messaging' });
    engine.recovery.start();
    const rebuilds = await serveProjectionRebuilds({ bus, readModels: MESSAGING_READ_MODELS, store: engine.store, config, logger });
    // The lookup the gateway makes most, answered without the bus where it shares this process
    // (offered last: nothing after it can fail the start and leave it behind).
    const api = engine.api;
    const removeDirectAnswer = answerInProcess(bus, MessagingSubjects.get, (request) => api.get(request));
    const sweeper = ownsBlobs ? sweepFolder(blobs, logger) : undefined;
    logger.info({ blobStore: blobs.constructor.name }, 'messaging service started');
    const running = engine;
    const microservice = app;
    let closing: Promise<void> | undefined;
    const close = async (): Promise<void> => {
      clearInterval(sweeper);
      removeDirectAnswer();
      await microservice.close();
      await rebuilds.close();
      await running.close();
      if (ownsBlobs) await blobs.close();
    };
    return { name: 'messaging', engine: running, ready: () => running.caughtUp() && bus.isConnected(), close: () => (closing ??= close()) };
  } catch (error) {
    await app?.close();
    await engine?.close();
    if (ownsBlobs) await blobs.close();
    throw error;
  }
}

/** The folder store's counterpart of the NATS bucket TTL: blobs go 24 h after their last put. */
function sweepFolder(blobs: BlobStore, logger: Logger): NodeJS.Timeout | undefined {
  if (!(blobs instanceof FolderBlobStore)) return undefined;
  const sweep = () => void blobs.sweep(DEFAULT_BLOB_TTL_MS).catch((error: unknown) => logger.warn({ err: error }, 'media blob sweep failed'));
  sweep();
  const timer = setInterval(sweep, 60 * 60 * 1000);
  timer.unref();
  return timer;
}
