import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { ApiError } from '../errors/api-error.js';
import { installErrorHandler } from './error-response.js';

interface LogLine {
  level: number;
  msg: string;
  code?: string;
  err?: { stack?: string };
}

/** An app whose routes throw what each test needs, logging at debug into `lines`. */
async function appLogging(lines: LogLine[]) {
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  // As app.ts does: the pino-typed instance is used as a plain FastifyInstance.
  const app = Fastify({ loggerInstance: logger }) as unknown as FastifyInstance;
  installErrorHandler(app);
  app.get('/not-implemented', () =>
    Promise.reject(ApiError.withMessage('NOT_IMPLEMENTED', 'operation x is not implemented yet')),
  );
  app.get('/refused', () => Promise.reject(new ApiError('UNAUTHORIZED')));
  app.get('/broken', () => Promise.reject(new TypeError('cannot read properties of undefined')));
  await app.ready();
  return app;
}

const ERROR = 50;
const DEBUG = 20;

describe('error logging', () => {
  it('logs a 501 and an expected 4xx at debug, naming the code, without a stack', async () => {
    const lines: LogLine[] = [];
    const app = await appLogging(lines);
    assert.equal((await app.inject({ url: '/not-implemented' })).statusCode, 501);
    assert.equal((await app.inject({ url: '/refused' })).statusCode, 401);
    const refused = lines.filter((line) => line.msg === 'request refused');
    assert.deepEqual(
      refused.map((line) => [line.level, line.code]),
      [
        [DEBUG, 'NOT_IMPLEMENTED'],
        [DEBUG, 'UNAUTHORIZED'],
      ],
    );
    assert.ok(lines.every((line) => line.level < ERROR && line.err === undefined));
    await app.close();
  });

  it('logs an unexpected failure at error level with its stack', async () => {
    const lines: LogLine[] = [];
    const app = await appLogging(lines);
    const response = await app.inject({ url: '/broken' });
    assert.equal(response.statusCode, 500);
    assert.equal((JSON.parse(response.body) as { error: { code: string } }).error.code, 'UNHANDLED');
    const errors = lines.filter((line) => line.level >= ERROR);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.err?.stack ?? '', /TypeError: cannot read properties of undefined/);
    await app.close();
  });
});
