import type { DetailCode } from '../errors.ts';

export interface ApiErrorDetail {
  /** RFC 6901 JSON pointer into the request. */
  path: string;
  code: DetailCode | string;
}

/** An error answer of the API: its status, code, message and field pointers, never a body echo. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ApiErrorDetail[] = [],
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server could not be reached (refused, reset, DNS, TLS): no answer at all. */
export class ApiUnreachableError extends Error {
  constructor(
    readonly server: string,
    cause: unknown,
  ) {
    super(`Cannot reach ${server}: ${describeCause(cause)}`);
    this.name = 'ApiUnreachableError';
  }
}

function describeCause(cause: unknown): string {
  // fetch wraps the socket error: `TypeError: fetch failed` with `cause: { code: 'ECONNREFUSED' }`.
  const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
  return inner?.code ?? inner?.message ?? (cause as Error)?.message ?? 'unknown error';
}

/** Reads an error envelope; an answer that is not one becomes `HTTP_<status>` with no text of its body. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  let envelope: { error?: { code?: unknown; message?: unknown; details?: unknown }; meta?: { requestId?: string } } | undefined;
  try {
    envelope = JSON.parse(await response.text());
  } catch {
    envelope = undefined;
  }
  const error = envelope?.error;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') {
    return new ApiError(response.status, `HTTP_${response.status}`, `The server answered ${response.status} ${response.statusText}`.trim(), [], requestId);
  }
  const details = Array.isArray(error.details) ? (error.details as ApiErrorDetail[]).filter((d) => typeof d?.path === 'string' && typeof d?.code === 'string') : [];
  return new ApiError(response.status, error.code, error.message, details, requestId ?? envelope?.meta?.requestId);
}
