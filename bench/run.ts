// Benchmarks: `npm run bench -- <name>`. Each prints its figures as a ratio against a
// baseline measured in the same run (see bench/README.md).
import { benchApi } from './api.ts';
import { benchDeploy } from './deploy.ts';
import { benchDeployCodex } from './deploy-codex.ts';
import { benchDeployDocker } from './deploy-docker.ts';
import { benchDeploySsh } from './deploy-ssh.ts';
import { benchDiscovery } from './discovery.ts';
import { benchQueue } from './queue.ts';
import { benchRedeployDowntime } from './redeploy-downtime.ts';
import { benchRedeployDowntimeDocker } from './redeploy-downtime-docker.ts';

const BENCHES: Record<string, () => Promise<void>> = {
  api: () => benchApi(),
  queue: () => benchQueue(),
  discovery: () => benchDiscovery(),
  deploy: async () => {
    await benchDeploy();
    await benchDeployCodex();
  },
  'deploy-openclaw': () => benchDeploy(),
  'deploy-codex': () => benchDeployCodex(),
  'deploy-docker': () => benchDeployDocker(),
  'deploy-ssh': () => benchDeploySsh(),
  'redeploy-downtime': () => benchRedeployDowntime(),
  'redeploy-downtime-docker': () => benchRedeployDowntimeDocker(),
};

const names = process.argv.slice(2);
for (const name of names.length ? names : Object.keys(BENCHES)) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown bench "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  await bench();
}
