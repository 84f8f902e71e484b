import { ApiError } from '@switchboard/contracts';

/** A command for a message that was never accepted: a foreign or unknown id. */
export class MessageNotAccepted extends ApiError {
  constructor() {
    super('MESSAGE_NOT_FOUND');
  }
}
