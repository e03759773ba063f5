import { MAX_ERROR_DETAILS, MAX_ERROR_MESSAGE_LENGTH, type ErrorCode, type ErrorDetail } from '@occ/contracts';

/**
 * The one error type use cases raise. It carries an API code, never an HTTP status:
 * the HTTP layer maps codes to statuses through the registry in @occ/contracts.
 * Messages are fixed text written here; they never contain a secret, a token or raw input.
 */
export class OccError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message.slice(0, MAX_ERROR_MESSAGE_LENGTH));
    this.name = 'OccError';
    this.code = code;
    this.details = details?.slice(0, MAX_ERROR_DETAILS);
  }
}

export const notFound = (what = 'Resource') => new OccError('NOT_FOUND', `${what} not found.`);
export const forbidden = () => new OccError('FORBIDDEN', 'The caller may not perform this action.');
export const invalid = (message: string, details: ErrorDetail[]) => new OccError('INVALID_REQUEST', message, details);
export const conflict = (message: string, details?: ErrorDetail[]) => new OccError('RESOURCE_CONFLICT', message, details);
