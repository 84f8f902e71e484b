/**
 * libsignal (a Baileys dependency) prints whole session objects, keys included, with
 * console.info/warn/error when it opens, closes or re-keys a session
 * (node_modules/libsignal/src/session_record.js, session_builder.js, session_cipher.js).
 * That output is noise and leaks key material into logs, and libsignal offers no logger
 * option, so its known messages are dropped at the console; everything else passes through.
 */
const LIBSIGNAL_MESSAGE_PREFIXES = [
  'Closing session',
  'Opening session',
  'Removing old closed session',
  'Session already closed',
  'Session already open',
  'Migrating session to',
  'Closing open session in favor of incoming prekey bundle',
  'Closing stale open session',
  'Decrypted message with closed session',
  'Failed to decrypt message with any known session',
  'Session error:',
  'V1 session storage migration error',
  'WARNING: Expected pubkey of length 33',
  'Unhandled bucket type',
];

let installed = false;

function isLibsignalMessage(args: unknown[]): boolean {
  const first = args[0];
  return typeof first === 'string' && LIBSIGNAL_MESSAGE_PREFIXES.some((prefix) => first.startsWith(prefix));
}

/** Idempotent; affects console.info, console.warn and console.error of this process. */
export function silenceLibsignalConsole(): void {
  if (installed) return;
  installed = true;
  for (const method of ['info', 'warn', 'error', 'log'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      if (!isLibsignalMessage(args)) original(...args);
    };
  }
}
