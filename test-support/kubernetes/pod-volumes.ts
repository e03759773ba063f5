import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ContainerWaiting, fieldValue } from './pod-environment.ts';
import { resourceFor } from './resources.ts';
import type { ObjectStore } from './store.ts';

/** Where a container path lives on this host: the process cannot see the pod's own paths. */
export interface HostMount {
  mountPath: string;
  hostPath: string;
}

const configMaps = resourceFor('ConfigMap');
const secrets = resourceFor('Secret');

/**
 * Writes the pod's volumes under `root` (configMap, secret and projected volumes as files with
 * their modes, emptyDir as a fresh 0700 directory) and returns each volume's host directory. Done
 * once per pod, as the kubelet sets volumes up before any container starts: every container that
 * mounts a volume sees the same directory, and it outlives container restarts. A missing required
 * ConfigMap or Secret throws ContainerCreating.
 */
export function materializeVolumes(store: ObjectStore, pod: any, root: string): Map<string, string> {
  const volumeDirs = new Map<string, string>();
  for (const volume of pod.spec.volumes ?? []) {
    const dir = join(root, 'volumes', volume.name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    if (volume.configMap) writeSource(store, pod, dir, { configMap: { ...volume.configMap } }, volume.configMap.defaultMode);
    else if (volume.secret) writeSource(store, pod, dir, { secret: { ...volume.secret, name: volume.secret.secretName } }, volume.secret.defaultMode);
    else if (volume.projected) for (const source of volume.projected.sources ?? []) writeSource(store, pod, dir, source, volume.projected.defaultMode);
    // emptyDir and anything else: the fresh private directory.
    volumeDirs.set(volume.name, dir);
  }
  return volumeDirs;
}

/**
 * One container's mounts with their host paths (subPath included). A mount of a volume the pod
 * does not have throws CreateContainerConfigError.
 */
export function containerMounts(volumeDirs: Map<string, string>, container: any): HostMount[] {
  return (container.volumeMounts ?? []).map((mount: any) => {
    const dir = volumeDirs.get(mount.name);
    if (!dir) throw new ContainerWaiting('CreateContainerConfigError', `cannot find volume "${mount.name}" to mount into container "${container.name}"`);
    const hostPath = mount.subPath ? join(dir, mount.subPath) : dir;
    // The kubelet creates a subPath that does not exist yet (as a directory).
    if (mount.subPath && !existsSync(hostPath)) mkdirSync(hostPath, { recursive: true, mode: 0o700 });
    return { mountPath: String(mount.mountPath).replace(/\/+$/, '') || '/', hostPath };
  });
}

function writeSource(store: ObjectStore, pod: any, dir: string, source: any, defaultMode = 0o644): void {
  const write = (path: string, content: Buffer | string, mode?: number) => {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    chmodSync(file, mode ?? defaultMode);
  };
  const keyed = source.configMap ?? source.secret;
  if (keyed) {
    const isSecret = Boolean(source.secret);
    const object = store.get(isSecret ? secrets : configMaps, pod.metadata.namespace, keyed.name);
    if (!object) {
      if (keyed.optional) return;
      throw new ContainerWaiting('ContainerCreating', `MountVolume.SetUp failed: ${isSecret ? 'secret' : 'configmap'} "${keyed.name}" not found`);
    }
    const values: Record<string, Buffer> = {};
    for (const [key, value] of Object.entries<string>(object.data ?? {})) values[key] = isSecret ? Buffer.from(value, 'base64') : Buffer.from(value, 'utf8');
    for (const [key, value] of Object.entries<string>(object.binaryData ?? {})) values[key] = Buffer.from(value, 'base64');
    const items: Array<{ key: string; path: string; mode?: number }> = keyed.items ?? Object.keys(values).map((key) => ({ key, path: key }));
    for (const item of items) {
      const value = values[item.key];
      if (value === undefined) {
        if (keyed.optional) continue;
        throw new ContainerWaiting('ContainerCreating', `MountVolume.SetUp failed: configmap references non-existent config key: ${item.key}`);
      }
      write(item.path, value, item.mode ?? keyed.defaultMode);
    }
  }
  for (const item of source.downwardAPI?.items ?? []) if (item.fieldRef) write(item.path, fieldValue(pod, item.fieldRef.fieldPath), item.mode);
  // No token issuer here: a projected service account token is a placeholder file.
  if (source.serviceAccountToken) write(source.serviceAccountToken.path, 'fake-service-account-token');
}

/**
 * Rewrites a value naming a container path (equal to or under a mountPath) to its host path —
 * the one honest difference of the fake kubelet: its processes run on this host's file system.
 */
export function toHostPath(value: string, mounts: HostMount[]): string {
  const sorted = [...mounts].sort((a, b) => b.mountPath.length - a.mountPath.length);
  for (const { mountPath, hostPath } of sorted) {
    if (value === mountPath) return hostPath;
    if (value.startsWith(`${mountPath}/`)) return join(hostPath, value.slice(mountPath.length + 1));
  }
  return value;
}
