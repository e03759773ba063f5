import { CliError, EXIT } from '../exit-codes.ts';

/**
 * A Configuration document's `secretBindings`, where a binding may name its Secret
 * (`MODEL_API_KEY: { secret: model-key }`) instead of giving its id: each name becomes
 * `{ secretId }` through `secretIdOf`. Anything else is left for the API to judge.
 */
export async function resolveSecretBindings(bindings: unknown, secretIdOf: (name: string) => Promise<string>, where?: string): Promise<Record<string, unknown>> {
  if (typeof bindings !== 'object' || bindings === null || Array.isArray(bindings))
    throw new CliError(`${where ? `${where}: ` : ''}secretBindings must be a mapping of VARIABLE: { secret: NAME }`, EXIT.USAGE);
  const resolved: Record<string, unknown> = {};
  for (const [variable, binding] of Object.entries(bindings as Record<string, unknown>)) {
    const named = (binding as { secret?: unknown })?.secret;
    resolved[variable] = typeof named === 'string' ? { secretId: await secretIdOf(named) } : binding;
  }
  return resolved;
}
