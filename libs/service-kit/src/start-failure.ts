import { ConfigError, loadConfig } from './config.js';

/** Which variable sets each port a process binds, to name it when the port is taken. */
export type PortVariables = ReadonlyMap<number, string>;

/** The ports a process may bind, by variable (read again: the configuration may be what failed). */
export function portVariablesOf(env: Record<string, string | undefined>): PortVariables {
  try {
    const config = loadConfig(env);
    const ports: [number | undefined, string][] = [
      [config.metricsPort, 'SWITCHBOARD_METRICS_PORT'],
      [config.emulatorControlPort, 'SWITCHBOARD_EMULATOR_CONTROL_PORT'],
      [config.emulatorPort || undefined, 'SWITCHBOARD_EMULATOR_PORT'],
      [config.port, 'SWITCHBOARD_PORT'],
    ];
    return new Map(ports.filter((entry): entry is [number, string] => entry[0] !== undefined));
  } catch {
    return new Map();
  }
}

function errnoOf(error: unknown): { code?: string; port?: number; address?: string } {
  return typeof error === 'object' && error !== null ? (error as { code?: string; port?: number; address?: string }) : {};
}

/**
 * What an operator reads when a process cannot start: one line per problem, naming the variable
 * to change, never a stack (`LOG_LEVEL=debug` adds it for an unexpected error).
 */
export function startFailureLines(error: unknown, ports: PortVariables = new Map()): string[] {
  if (error instanceof ConfigError) return [...error.problems];
  const { code, port, address } = errnoOf(error);
  if ((code === 'EADDRINUSE' || code === 'EACCES') && port !== undefined) {
    const where = `${address ?? 'the address'}:${port}`;
    const problem = code === 'EADDRINUSE' ? `${where} is already in use (another process listens there)` : `${where} may not be bound by this user`;
    return [`${ports.get(port) ?? 'port'}: ${problem}`];
  }
  const message = error instanceof Error ? error.message : String(error);
  if (process.env['LOG_LEVEL'] === 'debug' && error instanceof Error && error.stack) return [message, error.stack];
  return [message];
}

/** Prints the lines to stderr (`<process>: …` each) and exits 1. */
export function exitOnStartFailure(processName: string, error: unknown, ports?: PortVariables): never {
  for (const line of startFailureLines(error, ports)) process.stderr.write(`${processName}: ${line}\n`);
  process.exit(1);
}
