// The runtime process a compute driver starts (runtimeLaunchCommand). Everything but the
// process plumbing — signals and the exit code — is runRuntime in main.ts.
import { productionDeps, runRuntime } from './main.ts';

const runtime = await runRuntime(process.env, productionDeps());
process.on('SIGTERM', () => void runtime.stop('SIGTERM'));
process.on('SIGINT', () => void runtime.stop('SIGINT'));
process.exit(await runtime.exitCode);
