// Sessions on both APIs: on the client API any caller lists, reads and deletes its own and admins everyone's; the
// management API is admin-only, as docs/design.md part 0 has it for every management route (upstream lets any
// authenticated caller in there too, to the same own-sessions view the client API gives). Creation lives in
// create-session.ts.
import { envelope } from '../../http/envelope.js';
import type { OperationHandler, OperationShape, OperationTable } from '../../http/operation.js';
import type { SessionCaller } from '../../http/request-context.js';
import { detail, fieldIs, list, remove, type FindOptions } from '../../crud/crud-handlers.js';
import { everyRow } from '../../store/queries/scopes.js';
import { emptyNetwork } from '../../fabric/network-views.js';
import { createSession } from './create-session.js';
import { session } from './session.definition.js';

/**
 * The caller's own sessions, an admin's everyone's: another identity's is as missing as one that does not exist
 * (upstream's `ReadForIdentity`).
 */
const own: FindOptions<OperationShape, SessionCaller> = {
  scope: ({ caller }) => {
    const { isAdmin, identityId } = caller.session;
    return Promise.resolve(isAdmin ? everyRow : fieldIs(session, 'identityId', identityId));
  },
};

/**
 * The routers of the first circuit dialled with the session, as upstream's `SessionRouter.DetailRoutePath` scans the
 * circuits (an edge circuit's client is its Dial session). An unknown id is 200 with an empty path: upstream never
 * looks the session up. The circuits are every live process's, as `GET /fabric/v1/circuits` shows them (from the store:
 * src/fabric/circuits/circuit-records.ts).
 */
const detailSessionRoutePath: OperationHandler = {
  access: 'admin',
  async handle({ deps, params }) {
    const circuits = await (deps.network ?? emptyNetwork).circuits.list();
    const circuit = circuits.find((candidate) => candidate.sessionId === params.id);
    return { status: 200, json: envelope({ routePath: circuit ? [...circuit.path.routerIds] : [] }) };
  },
};

export const clientSessionOperations: OperationTable<'client'> = {
  listSessions: list(session, 'authenticated', own),
  detailSession: detail(session, 'authenticated', own),
  deleteSession: remove(session, 'authenticated', own),
  createSession,
};

export const managementSessionOperations: OperationTable<'management'> = {
  listSessions: list(session, 'admin', own),
  detailSession: detail(session, 'admin', own),
  deleteSession: remove(session, 'admin', own),
  detailSessionRoutePath,
};
