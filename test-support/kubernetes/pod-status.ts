import { nowTimestamp } from './store.ts';

/** A container's `state` (and `lastState`) as the kubelet reports it: exactly one of the three. */
export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: { exitCode: number; reason: string; signal?: number; startedAt: string; finishedAt: string } };

/** One entry of `status.containerStatuses`. */
export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState | Record<string, never>;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started: boolean;
}

/**
 * The pod's phase from its containers, as the kubelet's getPhase decides it: Pending while any
 * container has never started; Running while any runs; once every container has stopped, the
 * restartPolicy says whether the pod is done (Succeeded, Failed) or restarting (Running). A pod
 * being deleted stays Running (the fake keeps it so until the kubelet removes it).
 */
export function podPhase(statuses: ContainerStatus[], restartPolicy: string, stopping: boolean): string {
  let waiting = 0;
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const { state, lastState } of statuses) {
    if ('running' in state) running++;
    else if ('terminated' in state) {
      stopped++;
      if (state.terminated.exitCode === 0) succeeded++;
    } else if ('terminated' in lastState)
      stopped++; // waiting to restart
    else waiting++;
  }
  if (waiting > 0 || statuses.length === 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopping || restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded) return 'Succeeded';
  return restartPolicy === 'Never' ? 'Failed' : 'Running';
}

/**
 * The pod's conditions. `Ready` and `ContainersReady` are true only when every container is
 * ready; each condition's lastTransitionTime is the moment it last changed, so it is remembered.
 */
export class PodConditions {
  private readonly since = new Map<string, string>();

  of(statuses: ContainerStatus[]): object[] {
    const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
    const ready = statuses.length > 0 && unready.length === 0;
    const notReady = { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };
    const condition = (type: string, value: boolean, why?: object) => ({
      type,
      status: value ? 'True' : 'False',
      lastProbeTime: null,
      lastTransitionTime: this.transition(type, value),
      ...(value ? {} : why),
    });
    return [
      condition('PodReadyToStartContainers', true),
      condition('Initialized', true),
      condition('Ready', ready, notReady),
      condition('ContainersReady', ready, notReady),
      condition('PodScheduled', true),
    ];
  }

  private transition(type: string, value: boolean): string {
    const key = `${type}=${value}`;
    if (!this.since.has(key)) {
      for (const k of [...this.since.keys()]) if (k.startsWith(`${type}=`)) this.since.delete(k);
      this.since.set(key, nowTimestamp());
    }
    return this.since.get(key)!;
  }
}
