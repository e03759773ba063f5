import { RUNTIME_NETWORK_VARIABLES } from '@occ/host-io/network-env';
import { RUNTIME_START_DENIALS, RuntimeStartDenied, type RuntimeStartAuthority } from '../../../core/ports/runtime-start.ts';

/**
 * Variables a Secret binding may not name: the runtime contract and what decides how the runtime
 * (which holds its tokens) and its tools run. A delivered value never replaces one of them, and
 * none of them can hide a delivered value.
 * - OCC_*: the runtime contract and OCC's own settings; OPENCLAW_*: what the runtime sets for the
 *   OpenClaw CLI and gateway;
 * - NODE_* (NODE_OPTIONS would run code inside the runtime), NPM_CONFIG_* (npm reads it in any
 *   case), LD_* and DYLD_* (preloads into every process), OPENSSL_* (Node loads OpenSSL's
 *   configuration and modules at startup), GIT_* and PYTHON* (what tool subprocesses run);
 * - the shell's start-up and parsing hooks (BASH_ENV, ENV, SHELLOPTS, BASHOPTS, IFS, PS4), SHELL;
 * - PATH, HOME, TMPDIR, LANG, and the network allowlist (CA, proxy, npm registry).
 */
const RESERVED_PREFIXES = ['OCC_', 'OPENCLAW_', 'NODE_', 'NPM_CONFIG_', 'LD_', 'DYLD_', 'OPENSSL_', 'GIT_', 'PYTHON'];
const RESERVED_NAMES = new Set([
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'SHELL',
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'IFS',
  'PS4',
  ...RUNTIME_NETWORK_VARIABLES.map((name) => name.toUpperCase()),
]);

export function isReservedVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return RESERVED_NAMES.has(upper) || RESERVED_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** Closed codes of a start that did not happen, besides the authority's own (RUNTIME_START_DENIALS). */
export const START_REFUSALS = {
  SECRET_VARIABLE_RESERVED: 'A Secret binding names a variable the runtime reserves for itself.',
  /** The control plane could not be asked (e.g. the database is unreachable): never start unauthorized. */
  RUNTIME_START_UNAVAILABLE: 'The control plane could not authorize the runtime start.',
  /** The local driver cannot confine the runtime on this host (OCC's log says why; docs/security.md). */
  RUNTIME_CONFINEMENT_UNAVAILABLE:
    'This host cannot confine the runtime (Linux user, mount and pid namespaces are needed); OCC starts no unconfined Agent unless OCC_LOCAL_CONFINEMENT=none is set.',
} as const;

/** A start the driver itself refuses before any process exists. */
export class StartRefused extends Error {
  constructor(
    readonly code: keyof typeof START_REFUSALS,
    /** A variable NAME, never a value. */
    readonly variable?: string,
  ) {
    super(START_REFUSALS[code]);
    this.name = 'StartRefused';
  }
}

/** Why one start did not happen: a closed code, its fixed message, and at most a variable name. */
export interface StartFailure {
  code: string;
  message: string;
  variable?: string;
}

/** Maps whatever stopped a start to a StartFailure; an unexpected error's text is never kept (it may name anything). */
export function startFailureOf(error: unknown): StartFailure {
  if (error instanceof RuntimeStartDenied || error instanceof StartRefused) {
    const message = error instanceof RuntimeStartDenied ? RUNTIME_START_DENIALS[error.code] : START_REFUSALS[error.code];
    return { code: error.code, message, ...(error.variable ? { variable: error.variable } : {}) };
  }
  return { code: 'RUNTIME_START_UNAVAILABLE', message: START_REFUSALS.RUNTIME_START_UNAVAILABLE };
}

/** The authority a driver keeps from its `start`: without it `start` was never called, and no runtime starts without the control plane. */
export function startAuthority(authority: RuntimeStartAuthority | null, driver: string): RuntimeStartAuthority {
  if (!authority) throw new Error(`The ${driver} ComputeDriver was not started: no runtime starts without the control plane.`);
  return authority;
}

/** Whether the control plane (or this driver) refused the start, as opposed to not answering. */
export const isRefusal = (error: unknown) => error instanceof RuntimeStartDenied || error instanceof StartRefused;

/**
 * The runtime log's line for a start that did not happen: the code only. The runtime log is
 * readable with Agent read, and a variable's name is Configuration content (configuration:read).
 */
export const describeStartFailure = (failure: StartFailure) => `runtime start refused (${failure.code})`;
