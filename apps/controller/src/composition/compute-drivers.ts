import type { ComputeDriver } from '../core/ports/compute-driver.ts';

/**
 * The ComputeDrivers this build ships, by id (OCC_COMPUTE_DRIVER). Empty until the `local`
 * driver lands with the agent runtime; without one, deploys answer 501 and no worker runs.
 */
const FACTORIES: Record<string, () => ComputeDriver> = {};

export function availableComputeDrivers(): string[] {
  return Object.keys(FACTORIES);
}

export function createComputeDriver(id: string | undefined): ComputeDriver | undefined {
  if (!id) return undefined;
  const factory = FACTORIES[id];
  if (!factory) {
    const known = availableComputeDrivers();
    throw new Error(`Unknown ComputeDriver "${id}" (${known.length ? `available: ${known.join(', ')}` : 'this build ships none yet'})`);
  }
  return factory();
}
