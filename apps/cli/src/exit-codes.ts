import { humanPointer } from '@occ/contracts';
import { ApiError, ApiUnreachableError } from '@occ/contracts/client';

/** What `occ` exits with; documented in docs/cli.md, so scripts can branch on it. */
export const EXIT = {
  OK: 0,
  /** Anything else: a server error, an answer the CLI cannot read. */
  ERROR: 1,
  /** The command line or the request is wrong (unknown flag, missing argument, 400 from the API). */
  USAGE: 2,
  NOT_FOUND: 3,
  /** Not signed in, a rejected key (401) or not allowed (403). */
  FORBIDDEN: 4,
  /** A conflict (409) or a stale ETag (412): read again and retry. */
  CONFLICT: 5,
  /** `deploy --wait`: the deployment failed, or was superseded or stopped before it became active. */
  DEPLOYMENT_FAILED: 6,
  /** No answer from the server, or it says it cannot serve now (503). */
  UNREACHABLE: 7,
} as const;

/** An error the CLI raises itself, with the exit code it means. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.USAGE,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ApiUnreachableError) return EXIT.UNREACHABLE;
  if (error instanceof ApiError) {
    if (error.status === 400 || error.status === 413 || error.status === 415) return EXIT.USAGE;
    if (error.status === 401 || error.status === 403) return EXIT.FORBIDDEN;
    if (error.status === 404) return EXIT.NOT_FOUND;
    if (error.status === 409 || error.status === 412) return EXIT.CONFLICT;
    if (error.status === 503) return EXIT.UNREACHABLE;
  }
  return EXIT.ERROR;
}

/** One or a few lines for stderr: the API's code, message and the paths it names (decoded, for people); never a stack. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const lines = [`error: ${error.code}: ${error.message}`];
    for (const detail of error.details) lines.push(`  ${humanPointer(detail.path)}: ${detail.code}`);
    if (error.requestId) lines.push(`  (request ${error.requestId})`);
    return lines.join('\n');
  }
  if (error instanceof CliError) return `error: ${error.code ? `${error.code}: ` : ''}${error.message}`;
  return `error: ${(error as Error)?.message ?? String(error)}`;
}
