import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = Parameters<FastifyBaseLogger['child']>[1];

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger, made only when the request logs something at an enabled level. Fastify
 * builds a child logger for every request (and the gateway another for its account); with pino's
 * redaction each costs tens of microseconds, for nothing on the many requests that log nothing
 * at the configured level. Lines are the same as a child's: same bindings, same level.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options?: ChildLoggerOptions,
  ) {}

  get level(): FastifyBaseLogger['level'] {
    return this.#made?.level ?? this.parent.level;
  }

  set level(level: FastifyBaseLogger['level']) {
    this.#logger().level = level;
  }

  // Methods on the prototype, not arrow fields: seven closures per request were a visible share of
  // a read's garbage. Called as methods (`request.log.info(...)`), as pino's own are.
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return new LazyChildLogger(this, bindings, options);
  }

  /** pino's own check when the parent has it (a child keeps its parent's level unless set). */
  isLevelEnabled(level: LogMethod): boolean {
    if (this.#made) return enabled(this.#made, level);
    return enabled(this.parent, level);
  }

  #log(level: LogMethod, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#logger()[level] as (...a: unknown[]) => void)(...args);
  }

  /** The real logger, made now (a lazy parent makes its own first). */
  materialized(): FastifyBaseLogger {
    return this.#logger();
  }

  #logger(): FastifyBaseLogger {
    const parent = this.parent instanceof LazyChildLogger ? this.parent.materialized() : this.parent;
    this.#made ??= parent.child(this.bindings, this.options);
    return this.#made;
  }
}

function enabled(logger: FastifyBaseLogger, level: LogMethod): boolean {
  const check = (logger as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled;
  return check ? check.call(logger, level) : true;
}
