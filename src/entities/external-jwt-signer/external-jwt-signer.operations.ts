// External JWT signer operations: admin CRUD on the management API, and the public list clients log in from.
import type { OperationTable } from '../../http/operation.js';
import { create, detail, fieldIs, list, patch, remove, update } from '../../crud/crud-handlers.js';
import { externalJwtSigner, publicExternalJwtSigner } from './external-jwt-signer.definition.js';

export const externalJwtSignerOperations: OperationTable<'management'> = {
  listExternalJwtSigners: list(externalJwtSigner, 'admin'),
  createExternalJwtSigner: create(externalJwtSigner, 'admin'),
  detailExternalJwtSigner: detail(externalJwtSigner, 'admin'),
  updateExternalJwtSigner: update(externalJwtSigner, 'admin'),
  patchExternalJwtSigner: patch(externalJwtSigner, 'admin'),
  deleteExternalJwtSigner: remove(externalJwtSigner, 'admin'),
};

/** Anonymous, as upstream: a client picks its identity provider before it has a session. Enabled signers only. */
export const clientExternalJwtSignerOperations: OperationTable<'client'> = {
  listExternalJwtSigners: list(publicExternalJwtSigner, 'public', {
    scope: () => Promise.resolve(fieldIs(externalJwtSigner, 'enabled', 1)),
  }),
};
