import type Docker from 'dockerode';
import { labelFilter } from '../../apps/controller/src/drivers/compute/docker/container-spec.ts';

/** A docker test's clean-up: every container and network the Installation's driver labelled, whatever state they are in. */
export async function removeInstallationObjects(docker: Docker, installation: string): Promise<void> {
  for (const c of await docker.listContainers({ all: true, filters: { label: labelFilter(installation) } }))
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => {});
  for (const n of await docker.listNetworks({ filters: { label: labelFilter(installation) } }))
    await docker
      .getNetwork(n.Id)
      .remove()
      .catch(() => {});
}
