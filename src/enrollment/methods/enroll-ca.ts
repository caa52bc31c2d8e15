// TODO(#6): being built in this session.
import { ApiError } from '../../errors/api-error.js';
import type { OperationContext, OperationResult } from '../../http/operation.js';

export const enrollWithCa = (_context: OperationContext): Promise<OperationResult> =>
  Promise.reject(ApiError.withMessage('NOT_IMPLEMENTED', 'CA auto-enrollment is not implemented yet'));
