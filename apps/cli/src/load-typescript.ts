const REGISTERED = Symbol.for('occ.tsx-registered');

/**
 * Lets the bundled CLI import TypeScript sources (the controller, for `occ up` and `occ worker`):
 * registers tsx once per process, whichever of bin/occ.mjs or this module gets there first.
 */
export async function loadTypeScript(): Promise<void> {
  const global = globalThis as { [REGISTERED]?: boolean };
  if (global[REGISTERED]) return;
  const { register } = await import('tsx/esm/api');
  register();
  global[REGISTERED] = true;
}
