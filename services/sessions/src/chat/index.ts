export type * from './driver.js';
export { ChatNetworkError, NotConnectedError, RecipientNotOnNetworkError } from './errors.js';
export { NonLoopbackEmulatorError, resolveNetwork, type ChatNetworkConfig } from './network.js';
export { BaileysChatNetwork, type BaileysChatNetworkOptions } from './baileys/baileys-chat-network.js';
export type { ReconnectPolicy } from './baileys/reconnect-policy.js';
export { SqliteCredentialsStore } from './credentials/sqlite-credentials-store.js';
export { CredentialsDecryptionError } from './credentials/cipher.js';
export { InvalidSecretKeyError, loadOrCreateSecretKey, parseSecretKey, resolveSecretKey } from './credentials/secret-key.js';
