import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerRuntime, type ImageCommand, type PodSandbox } from './container-runtime.ts';
import { ContainerWaiting, resolveEnvironment } from './pod-environment.ts';
import { PodConditions, podPhase } from './pod-status.ts';
import { containerMounts, materializeVolumes, toHostPath } from './pod-volumes.ts';
import { resourceFor } from './resources.ts';
import { nowTimestamp, type ObjectStore } from './store.ts';

const pods = resourceFor('Pod');
const RETRY_MS = 250;

/**
 * One pod on the fake kubelet: the sandbox its containers share — one address, one root dir
 * holding the pod's volumes (set up once, before any container starts) — and every container of
 * `spec.containers` as a ContainerRuntime. It writes the pod's status back to the store whenever
 * a container changes. Container paths become host paths (see toHostPath).
 */
export class PodRuntime implements PodSandbox {
  private readonly root = mkdtempSync(join(tmpdir(), 'occ-fake-pod-'));
  private readonly containers: ContainerRuntime[];
  private volumeDirs: Map<string, string> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private readonly conditions = new PodConditions();
  private readonly startTime = nowTimestamp();

  constructor(
    private readonly store: ObjectStore,
    private readonly namespace: string,
    readonly name: string,
    readonly address: string,
    images: Record<string, ImageCommand>,
  ) {
    // A pod's container list is immutable, so the runtimes are made once.
    const names: string[] = (this.pod()?.spec.containers ?? []).map((c: any) => c.name);
    this.containers = names.map((container) => new ContainerRuntime(container, this, images));
  }

  /** True while any container's process runs (pods/proxy can reach the pod's address). */
  get running(): boolean {
    return this.containers.some((c) => c.running);
  }

  container(name: string): ContainerRuntime | undefined {
    return this.containers.find((c) => c.name === name);
  }

  start(): void {
    this.publish();
    this.setUpVolumes();
  }

  /** SIGKILL every container's processes (each is then restarted, as the restartPolicy says). */
  kill(): void {
    for (const container of this.containers) container.kill();
  }

  /** Stops every container at once (SIGTERM, SIGKILL after the grace period); then the temp dirs go. */
  terminate(graceSeconds: number): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.timer);
      await Promise.all(this.containers.map((c) => c.stop(graceSeconds)));
      rmSync(this.root, { recursive: true, force: true });
    })();
    return this.stopping;
  }

  pod(): any | undefined {
    return this.store.get(pods, this.namespace, this.name);
  }

  /** The container's environment (pod paths rewritten to host paths) and working directory. */
  containerConfig(pod: any, container: any): { env: Record<string, string>; cwd: string } {
    const mounts = containerMounts(this.volumeDirs!, container);
    const resolved = resolveEnvironment(this.store, pod, container);
    const env = Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, toHostPath(v, mounts)]));
    return { env, cwd: container.workingDir ? toHostPath(container.workingDir, mounts) : this.root };
  }

  changed(): void {
    this.publish();
  }

  /** Volumes first (retried until their ConfigMaps and Secrets exist), then every container. */
  private setUpVolumes(): void {
    if (this.stopping !== undefined) return;
    const pod = this.pod();
    if (!pod) return;
    try {
      this.volumeDirs = materializeVolumes(this.store, pod, this.root);
    } catch (error) {
      if (!(error instanceof ContainerWaiting)) throw error;
      for (const container of this.containers) container.wait(error.reason, error.message);
      this.timer = setTimeout(() => this.setUpVolumes(), RETRY_MS);
      return;
    }
    for (const container of this.containers) container.start();
  }

  /** Writes the pod's status as the real kubelet shapes it. */
  private publish(): void {
    const pod = this.pod();
    if (!pod) return;
    const statuses = this.containers.map((c) => c.status(pod));
    pod.spec.nodeName ??= 'fake-node';
    pod.status = {
      phase: podPhase(statuses, pod.spec.restartPolicy ?? 'Always', this.stopping !== undefined),
      conditions: this.conditions.of(statuses),
      hostIP: '127.0.0.1',
      hostIPs: [{ ip: '127.0.0.1' }],
      podIP: this.address,
      podIPs: [{ ip: this.address }],
      startTime: this.startTime,
      containerStatuses: statuses,
      qosClass: 'BestEffort',
    };
    this.store.update(pods, pod);
  }
}
