import type { SubscriptionStart } from './event-store.js';

/**
 * Where a projection keeps its checkpoint (the position of the last event it applied), so
 * that a restart resumes with `subscribe({ from: await checkpoints.load(name) })`.
 */
export interface CheckpointStore {
  /** The stored checkpoint, or `start` when the projection never stored one. */
  load(name: string): Promise<SubscriptionStart>;
  save(name: string, position: bigint): Promise<void>;
  close(): Promise<void>;
}
