import type { CliOutcome } from './openclaw-cli.ts';

/**
 * How a `plugins install` that did not succeed is judged (README.md, "Install failures"):
 * - `rejected`: OpenClaw exited normally with a non-zero status and npm reported no transport
 *   error — OpenClaw looked at the package (or its absence) and refused it. The selection is
 *   disabled with the warning PLUGIN_INSTALL_FAILED.
 * - `unreachable`: the package source could not be used — an npm error code for the network,
 *   DNS, TLS, a proxy, an unusable registry answer, or the install deadline / a signal. An
 *   ordinary startup failure (PLUGIN_SOURCE_UNREACHABLE), retried like any other.
 * - `broken`: the CLI could not run or misbehaved (spawn error, runaway output): PLUGIN_INSTALL_ERROR.
 * `reason` is a code from the lists below or a fixed word, never text from the output.
 */
export type InstallFailure = { kind: 'rejected'; exitCode: number } | { kind: 'unreachable'; reason: string } | { kind: 'broken'; reason: string } | { kind: 'aborted' };

/** npm / Node error codes that mean "the registry could not be reached or talked to". */
const TRANSPORT_CODES = new Set([
  // connection and DNS
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ERR_SOCKET_TIMEOUT',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'EPROTO',
  'ECONNREFUSED_PROXY',
  'ERR_PROXY_CONNECT',
  // TLS: the certificate chain could not be verified or the handshake failed
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  // the registry answered, but not with the package: server errors, throttling, refused credentials
  'E401',
  'E403',
  'E407',
  'E408',
  'E429',
  'E500',
  'E502',
  'E503',
  'E504',
  'EAUTHUNKNOWN',
  'ENEEDAUTH',
]);

/**
 * `npm error code X` / `npm error errno X` (npm ≥ 10) or `npm ERR! code X` (older npm) as a line of
 * its own, possibly behind OpenClaw's prefix (`npm view failed: npm error code ECONNREFUSED`).
 */
const NPM_ERROR_CODE = /(?:^|: )npm (?:error|ERR!) (?:code|errno) ([A-Z][A-Z0-9_]{1,63})[ \t]*$/gm;

/** The first transport code npm reported in `stderr`, or null. */
export function npmTransportCode(stderr: string): string | null {
  for (const match of stderr.matchAll(NPM_ERROR_CODE)) {
    if (TRANSPORT_CODES.has(match[1]!)) return match[1]!;
  }
  return null;
}

/** Judges a `plugins install` outcome that is not a success (exit 0 is never passed here). */
export function classifyInstallFailure(outcome: CliOutcome): InstallFailure {
  switch (outcome.kind) {
    case 'exited': {
      const transport = npmTransportCode(outcome.stderr);
      return transport === null ? { kind: 'rejected', exitCode: outcome.code } : { kind: 'unreachable', reason: transport };
    }
    case 'timeout':
      // npm may already have said why it is stuck (retrying a refused connection, say).
      return { kind: 'unreachable', reason: npmTransportCode(outcome.stderr) ?? 'DEADLINE_EXCEEDED' };
    case 'signal':
      return { kind: 'unreachable', reason: npmTransportCode(outcome.stderr) ?? (/^SIG[A-Z0-9]+$/.test(outcome.signal) ? outcome.signal : 'SIGNAL') };
    case 'aborted':
      return { kind: 'aborted' };
    case 'spawn-error':
      return { kind: 'broken', reason: 'SPAWN_ERROR' };
    case 'output-too-large':
      return { kind: 'broken', reason: 'OUTPUT_TOO_LARGE' };
    case 'no-answer':
      // The process ended before the install answered: OpenClaw did not run it to an end, so it is no rejection.
      return { kind: 'broken', reason: 'NO_ANSWER' };
    case 'skipped':
      // An install is never skipped (each is sent on its own); kept total so a new outcome kind cannot pass unjudged.
      return { kind: 'broken', reason: 'NOT_RUN' };
  }
}
