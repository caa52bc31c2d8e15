// What an operation handler receives and returns; the binder turns the result into an HTTP reply.
//
// A handler is typed by its operation: `OperationHandler<'detailIdentity'>` reads `params.id` as a string and
// `body` as the contract's type (src/http/spec/gen/operations.ts, generated from the committed contract), and its
// `caller` by the access it declares: anything but `public` gets a caller whose `session` is present.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app-deps.js';
import type { RequestContext, SessionCaller } from './request-context.js';
import type { ApiName } from './spec/contract-types.js';
import type { OperationsByApi } from './spec/gen/operations.js';

/**
 * Who may call an operation (checked after request validation, as upstream does):
 * - public: anyone;
 * - partial: a valid API session, even one with secondary authentication (MFA) outstanding;
 * - authenticated: a fully authenticated API session;
 * - admin: a fully authenticated API session of an admin identity.
 */
export type Access = 'public' | 'partial' | 'authenticated' | 'admin';
/** The access levels that admit only a caller with an API session. */
export type SessionAccess = Exclude<Access, 'public'>;
/** The caller a handler of this access sees. */
export type CallerFor<A extends Access> = A extends 'public' ? RequestContext : SessionCaller;

/** An operation's validated request parts; the generated types fill it in per operationId. */
export interface OperationShape {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
}

/** An operationId of one API (or of any, by default). */
export type OperationId<Api extends ApiName = ApiName> = Api extends ApiName
  ? keyof OperationsByApi[Api] & string
  : never;

/** The shape of an operation, by id (of every API that has it, or of the one named) or as a shape already. */
export type OperationOf<Op extends string | OperationShape, Api extends ApiName = ApiName> = Op extends OperationShape
  ? Op
  : Api extends ApiName
    ? Op extends keyof OperationsByApi[Api]
      ? OperationsByApi[Api][Op]
      : never
    : never;

export interface OperationContext<
  Op extends OperationShape = OperationShape,
  Caller extends RequestContext = RequestContext,
> {
  deps: AppDeps;
  caller: Caller;
  api: ApiName;
  params: Op['params'];
  query: Op['query'];
  /** The raw query string values, for parameters the contract does not declare (filter on sub-lists, sort). */
  rawQuery: Record<string, string | string[] | undefined>;
  headers: Op['headers'];
  body: Op['body'];
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A JSON body is serialised by the binder; `raw` bodies (PEM, PKCS#7, PNG, YAML) go out as they are. */
export type OperationResult =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; raw: string | Buffer; contentType: string; headers?: Record<string, string> };

/** A handler of the operation `Op` (an operationId, with `Api` when it differs between APIs, or a shape). */
export type OperationHandler<
  Op extends OperationId | OperationShape = OperationShape,
  Api extends ApiName = ApiName,
> = HandlerOf<OperationOf<Op, Api>>;

/** A handler of an operation shape, its caller typed by its access. */
export type HandlerOf<Op extends OperationShape> =
  | { access: 'public'; handle: (context: OperationContext<Op>) => Promise<OperationResult> }
  | { access: SessionAccess; handle: (context: OperationContext<Op, SessionCaller>) => Promise<OperationResult> };

/**
 * A handler whose access is a value, as the kit's factories take it: `handle` sees the caller that access admits
 * (a session caller for a session access, a plain one when the access may be public).
 */
export function operation<Op extends OperationShape, A extends Access>(
  access: A,
  handle: (context: OperationContext<Op, CallerFor<A>>) => Promise<OperationResult>,
): HandlerOf<Op> {
  // Sound for every A (CallerFor<A> is the caller A admits), but TypeScript cannot narrow a generic to a union member.
  return { access, handle } as HandlerOf<Op>;
}

/** A handler that runs another of the same access inside `around` (to map its errors, say). */
export function wrapHandler<Op extends OperationShape>(
  handler: HandlerOf<Op>,
  around: (run: () => Promise<OperationResult>, context: OperationContext<Op>) => Promise<OperationResult>,
): HandlerOf<Op> {
  if (handler.access === 'public') {
    const { handle } = handler;
    return { access: handler.access, handle: (context) => around(() => handle(context), context) };
  }
  const { handle } = handler;
  return { access: handler.access, handle: (context) => around(() => handle(context), context) };
}

/** operationId → handler for one API (apis/*.ts); a table served by two APIs names both and holds their common ids. */
export type OperationTable<Api extends ApiName> = {
  readonly [Id in keyof OperationsByApi[Api] & string]?: HandlerOf<OperationOf<Id, Api>>;
};
