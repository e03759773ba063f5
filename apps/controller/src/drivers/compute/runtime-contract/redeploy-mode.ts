/**
 * How a target replaces an Agent's running revision (docs/deployments.md, "A redeploy prepares
 * beside the serving revision"):
 * - `recreate` ([P-5], [P-6]): the Agent's other runtime stops before the candidate starts.
 * - `prepare-beside`: the candidate installs and verifies while the serving runtime keeps serving,
 *   and waits in `prepared` (OCC_RUNTIME_HOLD_BEFORE_GATEWAY) until the driver has stopped the
 *   serving one and given the go: never two gateways, and the downtime is one gateway start.
 * Which one a target uses by default, and why, is the target's (local/redeploy-mode.ts, docker/settings.ts).
 */
export type RedeployMode = 'recreate' | 'prepare-beside';

/** The mode `variable` names (`fallback` when unset or empty); any other value is refused with `refuse`, naming the variable. */
export function redeploySetting(env: NodeJS.ProcessEnv, variable: string, fallback: RedeployMode, refuse: (message: string) => Error): RedeployMode {
  const value = env[variable];
  if (value === undefined || value === '') return fallback;
  if (value === 'recreate' || value === 'prepare-beside') return value;
  const other: RedeployMode = fallback === 'recreate' ? 'prepare-beside' : 'recreate';
  throw refuse(`${variable} must be ${fallback} (the default) or ${other}.`);
}
