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

  fatal: FastifyBaseLogger['fatal'] = (...args: unknown[]) => this.#log('fatal', args);
  error: FastifyBaseLogger['error'] = (...args: unknown[]) => this.#log('error', args);
  warn: FastifyBaseLogger['warn'] = (...args: unknown[]) => this.#log('warn', args);
  info: FastifyBaseLogger['info'] = (...args: unknown[]) => this.#log('info', args);
  debug: FastifyBaseLogger['debug'] = (...args: unknown[]) => this.#log('debug', args);
  trace: FastifyBaseLogger['trace'] = (...args: unknown[]) => this.#log('trace', args);
  silent: FastifyBaseLogger['silent'] = () => undefined;

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
