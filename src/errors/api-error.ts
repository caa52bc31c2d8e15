// ApiError: what every layer throws for a failure the client should see; error-response.ts renders it.
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

export type ErrorCause = FieldCause | MessageCause;

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

  static notFound(singularType: string, id: string): ApiError {
    return ApiError.withMessage('NOT_FOUND', `${singularType} with id ${id} not found`);
  }
}

/** Renders a value the way Go's `%v` does, because upstream field causes carry that text. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `map[${entries.map(([k, v]) => `${k}:${goValue(v)}`).join(' ')}]`;
  }
  if (typeof value === 'string') return value;
  return String(value as number | boolean | bigint);
}
