import type { PluginDriverRegistry } from './ports/plugin-driver.ts';
import type { SecretDriver } from './ports/secret-driver.ts';
import type { StateStore } from './ports/state.ts';

/** What the use cases are given; only the composition root constructs these. */
export interface ControllerDeps {
  state: StateStore;
  secrets: SecretDriver;
  pluginDrivers: PluginDriverRegistry;
  now: () => Date;
}
