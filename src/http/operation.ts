// What an operation handler receives and returns; the binder turns the result into an HTTP reply.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app-deps.js';
import type { RequestContext } from './request-context.js';
import type { ApiName } from './spec/contract-types.js';

/**
 * Who may call an operation (checked after request validation, as upstream does):
 * - public: anyone;
 * - partial: a valid API session, even one with secondary authentication (MFA) outstanding;
 * - authenticated: a fully authenticated API session;
 * - admin: a fully authenticated API session of an admin identity.
 */
export type Access = 'public' | 'partial' | 'authenticated' | 'admin';

export interface OperationContext {
  deps: AppDeps;
  caller: RequestContext;
  api: ApiName;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The raw query string values, for parameters the contract does not declare (filter on sub-lists, sort). */
  rawQuery: Record<string, string | string[] | undefined>;
  headers: Record<string, unknown>;
  body: unknown;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A JSON body is serialised by the binder; `raw` bodies (PEM, PKCS#7, PNG, YAML) go out as they are. */
export type OperationResult =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; raw: string | Buffer; contentType: string; headers?: Record<string, string> };

export interface OperationHandler {
  access: Access;
  handle(context: OperationContext): Promise<OperationResult>;
}

/** operationId → handler, as listed in apis/management.ts and apis/client.ts. */
export type OperationTable = Readonly<Record<string, OperationHandler>>;
