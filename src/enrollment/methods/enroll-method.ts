// The shape of a method module, apart from the dispatcher (enroll.operations.ts) that imports every method.
import type { OperationContext, OperationResult } from '../../http/operation.js';
import type { EnrollmentRecord } from '../../store/queries/enrollments.js';

/** A method module: the request, and (except for CA auto-enrollment) the live enrollment behind its token. */
export type EnrollMethod = (context: OperationContext, enrollment: EnrollmentRecord) => Promise<OperationResult>;
