// Authentication operations, bound on both APIs.
import type { OperationTable } from '../http/operation.js';
import { authenticate } from './authenticate.js';
import { deleteCurrentApiSession, getCurrentAPISession } from './current-api-session.js';

const shared: OperationTable<'client' | 'management'> = { authenticate, getCurrentAPISession, deleteCurrentApiSession };

export const clientAuthOperations: OperationTable<'client'> = shared;
export const managementAuthOperations: OperationTable<'management'> = shared;
