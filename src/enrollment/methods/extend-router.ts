// TODO(#6): being built in this session.
import { ApiError } from '../../errors/api-error.js';
import type { OperationHandler } from '../../http/operation.js';

export const extendRouterEnrollment: OperationHandler = {
  access: 'public',
  handle: () => Promise.reject(ApiError.withMessage('NOT_IMPLEMENTED', 'router certificate extension is not implemented yet')),
};
