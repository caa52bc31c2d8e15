// TODO(#6): being built in this session.
import { ApiError } from '../errors/api-error.js';
import type { OperationHandler } from '../http/operation.js';

const notYet: OperationHandler = { access: 'public', handle: () => Promise.reject(ApiError.withMessage('NOT_IMPLEMENTED', 'not implemented yet')) };
export const getEnrollmentJwks = notYet;
export const enrollmentChallenge = notYet;
