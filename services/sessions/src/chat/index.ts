export type * from './driver.js';
export { classifyNetworkFailure, type NetworkFailure, type NetworkFailureCause } from './network-failure.js';
export { ChatNetworkError, NotConnectedError, RecipientNotOnNetworkError } from './errors.js';
export { NonLoopbackEmulatorError, resolveNetwork, type ChatNetworkConfig } from './network.js';
export { BaileysChatNetwork, type BaileysChatNetworkOptions } from './baileys/baileys-chat-network.js';
export type { ReconnectPolicy } from './baileys/reconnect-policy.js';
export type { LatestWaWebVersion } from './baileys/wa-web-version.js';
export type { CredentialsRow, CredentialsStore } from './credentials/credentials-store.js';
export { SqliteCredentialsStore } from './credentials/sqlite-credentials-store.js';
export { CREDENTIALS_BUCKET, KvCredentialsStore } from './credentials/kv-credentials-store.js';
// The cipher and the key now live in service-kit (the events service seals webhook secrets too).
export { InvalidSecretKeyError, loadOrCreateSecretKey, parseSecretKey, resolveSecretKey, SecretDecryptionError } from '@switchboard/service-kit';
