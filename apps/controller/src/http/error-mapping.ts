import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '@occ/contracts';
import { containsCredentialToken, REDACTED } from '../core/credential-tokens.ts';
import { OccError } from '../core/errors.ts';
import { RequestValidationError } from './validation.ts';

export interface ErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

// Fastify's own request errors, by code: what the client did wrong, in our vocabulary.
const FASTIFY_ERRORS: Record<string, Omit<ErrorBody, 'status'>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'INVALID_REQUEST', message: 'The Content-Length does not match the body.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_REQUEST', message: 'The JSON body is empty.', details: [{ path: '', code: 'REQUIRED' }] },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_REQUEST', message: 'The body is not valid JSON.', details: [{ path: '', code: 'INVALID_FORMAT' }] },
};

// Connection-level failures of the database: the dependency is down, not the request wrong.
const UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006', '53300']);

// A pointer names the caller's own keys; a key shaped like a credential is not sent back.
export const scrubPath = (path: string) =>
  path
    .split('/')
    .map((seg) => (containsCredentialToken(seg) ? REDACTED : seg))
    .join('/');

const with_status = (e: Omit<ErrorBody, 'status'>): ErrorBody => ({
  ...e,
  status: ERROR_STATUS[e.code],
  ...(e.details ? { details: e.details.map((d) => ({ ...d, path: scrubPath(d.path) })) } : {}),
});

/** Maps anything thrown while serving a request to the error envelope. The only such mapping. */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof OccError) return with_status({ code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) });
  if (error instanceof RequestValidationError) {
    if (error.part === 'params') return with_status({ code: 'NOT_FOUND', message: 'Resource not found.' });
    return with_status({ code: 'INVALID_REQUEST', message: 'The request does not match its schema.', details: error.details });
  }
  const e = error as { code?: unknown; statusCode?: unknown; name?: unknown };
  if (typeof e.code === 'string' && FASTIFY_ERRORS[e.code]) return with_status(FASTIFY_ERRORS[e.code]!);
  if (e.name === 'SyntaxError' && e.statusCode === 400) return with_status(FASTIFY_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY!);
  if (typeof e.code === 'string' && UNAVAILABLE.has(e.code)) return with_status({ code: 'DEPENDENCY_UNAVAILABLE', message: 'A dependency is unavailable; retry later.' });
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return with_status({ code: 'INVALID_REQUEST', message: 'The request is not valid.' });
  }
  return with_status({ code: 'INTERNAL_ERROR', message: 'An internal error occurred.' });
}
