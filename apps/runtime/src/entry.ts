// The runtime process a compute driver starts (runtimeLaunchCommand). Everything but the
// process plumbing — signals, the exit code and a sandbox's network bridge — is runRuntime in main.ts.
import { logEvent } from './log.ts';
import { productionDeps, runRuntime } from './main.ts';
import { startSandboxBridge } from './sandbox-bridge.ts';

let bridge: Awaited<ReturnType<typeof startSandboxBridge>>;
try {
  bridge = await startSandboxBridge(process.env);
} catch (error) {
  // Nothing could reach the status server: the driver sees no endpoint and stops this start.
  logEvent('startup.unservable', { code: 'RUNTIME_ENVIRONMENT_INVALID', bridge: error instanceof Error ? error.message : 'failed' });
  process.exit(2);
}
const runtime = await runRuntime(process.env, productionDeps());
process.on('SIGTERM', () => void runtime.stop('SIGTERM'));
process.on('SIGINT', () => void runtime.stop('SIGINT'));
// No wait for the bridge: a client holding a keep-alive connection would keep the runtime alive.
// Exiting ends its listeners (and, as the sandbox's pid 1, every process in it).
void bridge;
process.exit(await runtime.exitCode);
