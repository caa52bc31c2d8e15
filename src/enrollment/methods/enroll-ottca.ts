// TODO(#6): being built in this session.
import { ApiError } from '../../errors/api-error.js';
import type { EnrollMethod } from '../enroll.operations.js';

export const enrollWithOttCa: EnrollMethod = () => Promise.reject(ApiError.withMessage('NOT_IMPLEMENTED', 'this enrollment method is not implemented yet'));
