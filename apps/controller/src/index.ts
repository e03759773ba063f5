export { createFastifyApp, type AppOptions } from './http/app.ts';
export { composeController, DEFAULT_CONSOLE_DIRECTORY, type ControllerConfig, type ComposedController } from './composition/compose.ts';
export { bootstrapInstallation } from './core/use-cases/installation.ts';
export { parsePluginDriverSelection } from './composition/plugin-drivers.ts';
export { composeWorker } from './composition/worker.ts';
export { createComputeDriver, DEFAULT_COMPUTE_DRIVER } from './composition/compute-drivers.ts';
export { createPgDatabase } from './state/pg-database.ts';
export { createAesGcmSecretDriver } from './drivers/secret/aes-gcm/index.ts';
export { existingSecretKey } from './drivers/secret/aes-gcm/key-source.ts';
