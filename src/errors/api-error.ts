// ApiError: what every layer throws for a failure the client should see; error-response.ts renders it.
import { goValue } from '../lib/go-format.js';
import { errorCatalog, type ApiErrorCode } from './error-catalog.js';

/** A field problem, rendered as the upstream `{field, reason, value}` cause; `value` is Go's `%v` text. */
export interface FieldCause {
  field: string;
  reason: string;
  value: string;
}

/** A nested cause as upstream renders plain Go errors: `{code: "UNHANDLED", message}`. */
export interface MessageCause {
  code: string;
  message: string;
}

/** A message with structured detail, as upstream's GenericCauseError renders (`INVALID_POSTURE`'s failing checks). */
export interface DataCause {
  message: string;
  data: Record<string, unknown>;
}

export type ErrorCause = FieldCause | MessageCause | DataCause;

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ApiErrorCode,
    /** Rendered as the envelope's `error.cause`; Error's own `cause` slot fits its meaning. */
    override readonly cause?: ErrorCause,
    message?: string,
  ) {
    const [status, defaultMessage] = errorCatalog[code];
    super(message ?? defaultMessage);
    this.status = status;
  }

  /** 400 COULD_NOT_VALIDATE with a field cause: the shape every field error takes on the wire. */
  static invalidField(field: string, reason: string, value: unknown): ApiError {
    return new ApiError('COULD_NOT_VALIDATE', { field, reason, value: goValue(value) });
  }

  /** An error whose cause is a plain message, rendered `{code: "UNHANDLED", message}` as upstream does. */
  static withMessage(code: ApiErrorCode, message: string): ApiError {
    return new ApiError(code, { code: 'UNHANDLED', message });
  }

  /** The same cause under another code (e.g. a field cause on a 401, as upstream's wrong-current-password). */
  as(code: ApiErrorCode): ApiError {
    return new ApiError(code, this.cause);
  }

  /**
   * Upstream's store refusing a delete through a foreign key: it names the first referrer (in id order) only, in
   * the singular (`entity type authPolicy referenced by identity: [id]`).
   */
  static referencedByKey(entityType: string, field: string, referrerType: string, firstReferrer: string): ApiError {
    const ids = goValue([firstReferrer]);
    return new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
      field,
      reason: `entity type ${entityType} referenced by ${referrerType}: ${ids}`,
      value: ids,
    });
  }

  /** The same through a link collection (a many-valued field): every referrer, types in the plural. */
  static referencedByLinks(
    entityTypes: string,
    field: string,
    referrerTypes: string,
    referrers: readonly string[],
  ): ApiError {
    const ids = goValue(referrers);
    return new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
      field,
      reason: `entity type ${entityTypes} referenced by ${referrerTypes}: ${ids}`,
      value: ids,
    });
  }

  static notFound(singularType: string, id: string): ApiError {
    return ApiError.withMessage('NOT_FOUND', `${singularType} with id ${id} not found`);
  }
}
