/** The fixed codes a failed startup publishes (`StartupStatus.error.code`). */
export const STARTUP_FAILURE_CODES = [
  'RUNTIME_ENVIRONMENT_INVALID',
  'RUNTIME_MANIFEST_INVALID',
  'RUNTIME_CATALOG_INVALID',
  'PLUGIN_POLICY_INVALID',
  'PLUGIN_INSTALL_ERROR',
  'PLUGIN_REGISTRY_REFRESH_FAILED',
  'PLUGIN_VERIFICATION_FAILED',
  'CONFIG_VERIFICATION_FAILED',
  'RUNTIME_CONFIG_WRITE_FAILED',
  'GATEWAY_START_FAILED',
  'RUNTIME_STARTUP_FAILED',
] as const;
export type StartupFailureCode = (typeof STARTUP_FAILURE_CODES)[number];

/**
 * An ordinary startup failure: the runtime stays unready, the gateway unstarted. The message is
 * a fixed sentence written here (at most 256 characters), never tool output, paths or secrets.
 */
export class StartupFailure extends Error {
  constructor(
    readonly code: StartupFailureCode,
    message: string,
  ) {
    super(message.length > 256 ? `${message.slice(0, 255)}…` : message);
    this.name = 'StartupFailure';
  }
}

/** Anything thrown that is not a StartupFailure becomes the generic code (its text stays in the log only). */
export function asStartupFailure(error: unknown): StartupFailure {
  if (error instanceof StartupFailure) return error;
  return new StartupFailure('RUNTIME_STARTUP_FAILED', 'The runtime failed unexpectedly while preparing the revision.');
}
