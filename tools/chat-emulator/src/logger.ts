import type { SocketConfig } from '@whiskeysockets/baileys';

/** Baileys' logger interface (not exported from its entry point). */
export type Logger = SocketConfig['logger'];

/** A logger that drops everything: the emulator's Signal peers must not print. */
export const silentLogger: Logger = {
  level: 'silent',
  child: () => silentLogger,
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
