/**
 * libsignal (used by the emulated phones and contacts) prints whole session objects with
 * console.info/warn on every re-key. Drop exactly those lines and nothing else.
 */
const LIBSIGNAL_PREFIXES = [
  'Closing session',
  'Opening session',
  'Removing old closed session',
  'Session already',
  'Closing open session in favor of incoming prekey bundle',
  'Decrypted message with closed session',
  'Migrating session to',
];

let installed = false;

const isLibsignalNoise = (args: unknown[]): boolean => {
  const first = args[0];
  return typeof first === 'string' && LIBSIGNAL_PREFIXES.some((prefix) => first.startsWith(prefix));
};

export const quietLibsignal = (): void => {
  if (installed) return;
  installed = true;
  for (const level of ['info', 'warn'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      if (!isLibsignalNoise(args)) original(...args);
    };
  }
};
