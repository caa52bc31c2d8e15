import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino, { type Logger } from 'pino';
import { requestLogger } from './request-logger.js';

/** A logger at `level` writing into `lines`, with no timestamp so that two lines can be compared. */
function loggerInto(lines: string[], level: string): Logger {
  return pino({ level, timestamp: false, base: { pid: 1, hostname: 'h' } }, { write: (line: string) => void lines.push(line) });
}

/** What each form of call writes through a real child and through the request logger. */
function bothWays(level: string, log: (logger: Logger) => void): { child: string[]; lazy: string[] } {
  const child: string[] = [];
  const lazy: string[] = [];
  log(loggerInto(child, level).child({ reqId: 'r-1' }));
  log(requestLogger(loggerInto(lazy, level), { reqId: 'r-1' }, {}) as unknown as Logger);
  return { child, lazy };
}

describe('requestLogger', () => {
  it('writes the same lines as a pino child with the request id, in every form of call', () => {
    for (const level of ['trace', 'info', 'warn', 'silent']) {
      const { child, lazy } = bothWays(level, (logger) => {
        logger.info({ method: 'GET', operation: 'listIdentities', status: 200, ms: 1.5, identityId: undefined }, 'request');
        logger.info({ reqId: 'overridden', path: '/x' }, 'request');
        logger.debug({ code: 'NOT_FOUND', status: 404, requestId: 'r-1' }, 'request refused');
        logger.error({ err: new Error('boom') }, 'request failed');
        logger.warn('plain %s', 'message');
        logger.trace({ a: 1 });
        logger.child({ more: true }).info({ b: 2 }, 'from a grandchild');
        logger.info({ after: 'child made' }, 'again');
      });
      assert.ok(child.length > 0 || level === 'silent');
      assert.deepEqual(lazy.map(withoutStack), child.map(withoutStack));
    }
  });

  it('reports the parent’s level until it has a child', () => {
    const logger = requestLogger(loggerInto([], 'warn'), { reqId: 'r' }, {}) as unknown as Logger;
    assert.equal(logger.level, 'warn');
    assert.equal(logger.isLevelEnabled('info'), false);
    assert.deepEqual(logger.bindings(), { reqId: 'r' });
  });
});

/** Error stacks name the line that made the error, the same in both. */
function withoutStack(line: string): string {
  return line.replace(/"stack":"[^"]*"/, '"stack":""');
}
