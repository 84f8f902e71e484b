/** The recipient has no account on the chat network. */
export class RecipientNotOnNetworkError extends Error {
  override readonly name = 'RecipientNotOnNetworkError';
  constructor(readonly phone: string) {
    super(`${phone} is not on the chat network`);
  }
}

/** The session has no open connection to the chat network right now. */
export class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is not connected to the chat network`);
  }
}

/**
 * The network refused or did not acknowledge an operation. For a send, the message may or may
 * not have reached the network: callers decide whether to retry with the same id.
 */
export class ChatNetworkError extends Error {
  override readonly name = 'ChatNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
