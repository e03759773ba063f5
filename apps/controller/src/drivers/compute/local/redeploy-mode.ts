import { redeploySetting, type RedeployMode } from '../runtime-contract/redeploy-mode.ts';

/**
 * How the local driver replaces an Agent's running OpenClaw revision (OCC_LOCAL_REDEPLOY;
 * docs/deployments.md, "A redeploy prepares beside the serving revision"):
 * - `recreate` (default, [P-5], [P-6]): the Agent's other runtime stops before the candidate's
 *   starts, so no other process has the Agent's state database open while the candidate installs.
 * - `prepare-beside`: an OpenClaw candidate installs and verifies beside the serving OpenClaw
 *   runtime, on the same Agent state (its OpenClaw CLI writes install records and the registry into
 *   the state database the old gateway holds open); the old runtime stops once the candidate is
 *   `prepared`, before it removes stale plugins or starts its gateway. Downtime: one gateway start.
 *   A listed difference from P-5 and P-6 (docs/specification-differences.md).
 */
const REDEPLOY_VARIABLE = 'OCC_LOCAL_REDEPLOY';
export const DEFAULT_REDEPLOY: RedeployMode = 'recreate';

/**
 * Whether a candidate about to start prepares beside the Agent's running runtimes: only with
 * `prepare-beside`, and only OpenClaw beside OpenClaw (OpenClaw installs and refreshes beside a
 * running gateway of the same state; a Codex revision also starts an app-server and links its
 * harness plugin into the state at start, so it keeps Recreate before its start).
 */
export function preparesBeside(mode: RedeployMode, candidate: { harness: string }, running: ReadonlyArray<{ harness: string }>): boolean {
  return mode === 'prepare-beside' && candidate.harness === 'openclaw' && running.length > 0 && running.every((other) => other.harness === 'openclaw');
}

/** The setting `occ up` / `occ worker` refuse to start with, naming the variable. */
class RedeploySettingError extends Error {
  override readonly name = 'RedeploySettingError';
}

export function localRedeploySetting(env: NodeJS.ProcessEnv): RedeployMode {
  return redeploySetting(env, REDEPLOY_VARIABLE, DEFAULT_REDEPLOY, (message) => new RedeploySettingError(message));
}
