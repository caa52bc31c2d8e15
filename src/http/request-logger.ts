// `request.log` without a pino child logger made for every request. Most requests log nothing at an enabled level,
// and the one line most do write (the access log) carries its bindings (the request id) the way the child would
// write them; anything else is logged through the child, made on first use.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

const levels: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

function logWith(logger: Logger, level: Level, args: unknown[]): void {
  Reflect.apply(logger[level], logger, args);
}

class RequestLogger {
  #child: Logger | undefined;

  constructor(
    readonly parent: Logger,
    readonly ownBindings: Bindings,
  ) {}

  /** The child logger the request would have had. */
  get real(): Logger {
    return (this.#child ??= this.parent.child(this.ownBindings));
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }

  bindings(): Bindings {
    return this.real.bindings();
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.real.child(bindings, options);
  }

  silent(): void {}

  /**
   * `(object, message)` through the parent with the bindings first: pino writes a child's bindings right before
   * the logged object's keys, so the line is the same. Other forms go through the child.
   */
  write(level: Level, args: unknown[]): void {
    if (this.#child) return logWith(this.#child, level, args);
    if (!this.parent.isLevelEnabled(level)) return;
    const [object, message] = args;
    if (args.length === 2 && typeof message === 'string' && isPlainObject(object) && !hasOwnBinding(object, this.ownBindings)) {
      return logWith(this.parent, level, [{ ...this.ownBindings, ...object }, message]);
    }
    logWith(this.real, level, args);
  }
}

for (const level of levels) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value(this: RequestLogger, ...args: unknown[]) {
      this.write(level, args);
    },
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function hasOwnBinding(object: Record<string, unknown>, bindings: Bindings): boolean {
  for (const key of Object.keys(bindings)) if (key in object) return true;
  return false;
}

/** Fastify's `childLoggerFactory`: a plain child when options (a route's log level, serializers) ask for one. */
export function requestLogger(this: unknown, parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (Object.keys(options).length > 0) return parent.child(bindings, options);
  return new RequestLogger(parent as unknown as Logger, bindings) as unknown as FastifyBaseLogger;
}
