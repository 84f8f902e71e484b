/** A failure the control API reports with an HTTP status and a stable code. */
export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'EmulatorError';
  }
}
