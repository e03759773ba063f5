import type { ContainerRuntime } from './container-runtime.ts';
import { badRequest } from './status.ts';

export interface LogOptions {
  container?: string;
  tailLines?: number;
  limitBytes?: number;
  previous: boolean;
}

/**
 * Which container pods/log reads, refused (400) in the real API server's words: without a name
 * only a one-container pod has an answer; a name must be one of the pod's containers (init and
 * ephemeral ones count, as there).
 */
export function logContainerName(pod: any, requested: string | undefined): string {
  const spec = pod.spec ?? {};
  const names: string[] = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c: any) => c.name);
  if (!requested) {
    const containers: any[] = spec.containers ?? [];
    if (containers.length === 1) return containers[0].name;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${pod.metadata.name}`);
    throw badRequest(`a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`);
  }
  if (!names.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${pod.metadata.name}`);
  return requested;
}

/**
 * One container's log, refused (400) in the kubelet's words when there is none: no previous
 * start, or the container has not started yet (with its waiting reason).
 */
export function containerLog(runtime: ContainerRuntime | undefined, container: string, podName: string, options: LogOptions): string {
  if (options.previous) {
    if (!runtime?.previousLogs) throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    return runtime.previousLogs.text(options);
  }
  if (!runtime?.startedOnce) {
    const reason = runtime?.waitingReason ?? 'ContainerCreating';
    const why = reason === 'ErrImagePull' ? "image can't be pulled" : reason;
    throw badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${why}`);
  }
  return runtime.logs.text(options);
}
