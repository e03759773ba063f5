/**
 * The one registry of API error codes and their HTTP statuses (docs/api.md, "Responses").
 * Domain code raises codes; only the HTTP layer reads the status column.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RESOURCE_CONFLICT: 409,
  INSTALLATION_EXISTS: 409,
  AGENT_DELETING: 409,
  NAMESPACE_NOT_EMPTY: 409,
  AGENT_NOT_RUNNING: 409,
  /** The installation's ComputeDriver places no Agent on an SSH host (PUT …/ssh-host). */
  SSH_HOSTS_UNSUPPORTED: 409,
  /** A Namespace's SSH host changes only while none of its Agents runs there (details: `/agents/<id>`). */
  NAMESPACE_AGENTS_ACTIVE: 409,
  /** No OpenID provider is configured (PUT /sign-in/provider) — sign in with an API key. */
  SIGN_IN_NOT_CONFIGURED: 409,
  /** A sign-in or a session refresh was refused; the message names the reason (SIGN_IN_REFUSAL_REASONS). */
  SIGN_IN_REFUSED: 403,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  DEPENDENCY_UNAVAILABLE: 503,
  AGENT_GATEWAY_UNAVAILABLE: 503,
  /** The OpenID provider did not answer (a session due for refresh fails closed until it does). */
  IDENTITY_PROVIDER_UNAVAILABLE: 503,
  PLUGIN_DISCOVERY_CREDENTIALS_REJECTED: 400,
  PLUGIN_DISCOVERY_RATE_LIMITED: 429,
  PLUGIN_DISCOVERY_INVALID_RESPONSE: 503,
  PLUGIN_DISCOVERY_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes of `error.details[].code`: what is wrong with the field the path points at. */
export const DETAIL_CODES = [
  'REQUIRED',
  'UNKNOWN_FIELD',
  'INVALID_TYPE',
  'INVALID_FORMAT',
  'INVALID_VALUE',
  'TOO_LONG',
  'TOO_SHORT',
  'TOO_LARGE',
  'TOO_DEEP',
  'UNSUPPORTED_VALUE',
  'UNSUPPORTED_FIELD',
  'INVALID_COMBINATION',
  'DUPLICATE_PLUGIN',
  'DUPLICATE_VALUE',
  'CROSS_NAMESPACE_REFERENCE',
  'RESOURCE_REMAINS',
  'REFERENCED_BY',
] as const;

export type DetailCode = (typeof DETAIL_CODES)[number];

export interface ErrorDetail {
  /** RFC 6901 JSON pointer into the request (body fields start at "/"). */
  path: string;
  code: DetailCode;
}

/** Messages are capped so that nothing large (or echoed) ever travels in an error. */
export const MAX_ERROR_MESSAGE_LENGTH = 256;
export const MAX_ERROR_DETAILS = 32;
