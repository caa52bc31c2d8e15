// The operation seam: callers admitted by access, handlers built for a runtime access, and (checked by the type
// checker, which `npm test` runs) handlers typed by their operation and callers by their access.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors/api-error.js';
import { admitCaller } from './access.js';
import {
  operation,
  wrapHandler,
  type OperationContext,
  type OperationHandler,
  type OperationTable,
} from './operation.js';
import type { CallerSession, RequestContext } from './request-context.js';

const session: CallerSession = {
  apiSessionId: 'as1',
  token: 't',
  identityId: 'id1',
  isAdmin: false,
  isPartial: false,
  authQueries: [],
  configTypes: null,
  expiresAt: new Date(0),
  expirationSeconds: 1800,
};
const callerWith = (over: Partial<CallerSession> | undefined, presentedToken = true): RequestContext => ({
  requestId: 'r',
  ip: '127.0.0.1',
  presentedToken,
  session: over && { ...session, ...over },
});

/** A 401; with `why`, one whose cause says it, with `null`, one without a cause. */
const refusal = (error: unknown, why?: string | null) =>
  error instanceof ApiError &&
  error.code === 'UNAUTHORIZED' &&
  (why === undefined ||
    (why === null
      ? error.cause === undefined
      : JSON.stringify(error.cause) === JSON.stringify({ code: 'UNHANDLED', message: why })));
const noCredentials = 'unauthenticated for invalid credentials';

describe('admitCaller', () => {
  it('returns the caller, session present, when its session satisfies the access', () => {
    const caller = callerWith({ isAdmin: true });
    assert.equal(admitCaller('admin', caller), caller);
    assert.equal(admitCaller('authenticated', callerWith({})).session.identityId, 'id1');
    assert.ok(admitCaller('partial', callerWith({ isPartial: true })).session.isPartial);
  });

  it('refuses a caller without a session, saying so when no credentials were presented (not on the fabric API)', () => {
    assert.throws(
      () => admitCaller('partial', callerWith(undefined, false)),
      (e) => refusal(e, noCredentials),
    );
    assert.throws(
      () => admitCaller('partial', callerWith(undefined, true)),
      (e) => refusal(e, null),
    );
    assert.throws(
      () => admitCaller('admin', callerWith(undefined, false), 'fabric'),
      (e) => refusal(e, null),
    );
  });

  it('refuses a partial session where full authentication is needed, and a non-admin where an admin is', () => {
    assert.throws(
      () => admitCaller('authenticated', callerWith({ isPartial: true })),
      (e) => refusal(e, null),
    );
    assert.throws(
      () => admitCaller('admin', callerWith({ isPartial: true, isAdmin: true })),
      (e) => refusal(e, null),
    );
    assert.throws(
      () => admitCaller('admin', callerWith({})),
      (e) => refusal(e, null),
    );
  });
});

describe('handlers built at run time', () => {
  const context = { caller: callerWith({}) } as unknown as OperationContext; // only `caller` is read below

  it('keep the access they are given', async () => {
    const seen: string[] = [];
    const handler = operation('authenticated', (c) => {
      seen.push(c.caller.session.identityId);
      return Promise.resolve({ status: 200, json: {} });
    });
    assert.equal(handler.access, 'authenticated');
    const wrapped = wrapHandler(handler, async (run) => ({ ...(await run()), status: 201 }));
    assert.equal(wrapped.access, 'authenticated');
    assert.equal(
      (await wrapped.handle({ ...context, caller: admitCaller('authenticated', context.caller) })).status,
      201,
    );
    assert.deepEqual(seen, ['id1']);
  });
});

// Compile-time checks: each @ts-expect-error fails the type check if the seam stops refusing that line.
export const typed: OperationHandler<'disableIdentity'> = {
  access: 'admin',
  handle: ({ params, body, caller }) => {
    const checks: [string, number, string] = [params.id, body.durationMinutes, caller.session.identityId];
    return Promise.resolve({ status: 200, json: checks });
  },
};
export const publicCaller: OperationHandler<'listVersion'> = {
  access: 'public',
  // @ts-expect-error a public operation's caller may have no session
  handle: ({ caller }) => Promise.resolve({ status: 200, json: caller.session.identityId }),
};
export const wrongBody: OperationHandler<'disableIdentity'> = {
  access: 'admin',
  // @ts-expect-error disableParams has no `name`
  handle: ({ body }) => Promise.resolve({ status: 200, json: body.name }),
};
const readsId = (
  c: OperationContext<{
    params: { id: string };
    query: Record<string, unknown>;
    headers: Record<string, unknown>;
    body: unknown;
  }>,
) => Promise.resolve({ status: 200, json: c.params.id });
export const wrongSlot: OperationTable<'management'> = {
  // @ts-expect-error listIdentities has no `{id}` for a handler that reads one
  listIdentities: operation('admin', readsId),
};
