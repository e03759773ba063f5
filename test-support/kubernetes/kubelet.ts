import { randomInt } from 'node:crypto';
import { type ImageCommand, MAX_GRACE_SECONDS } from './container-runtime.ts';
import { containerLog, type LogOptions, logContainerName } from './pod-logs.ts';
import { PodRuntime } from './pod-runtime.ts';
import type { PodAccess } from './router.ts';
import { resourceFor } from './resources.ts';
import { notFound, serviceUnavailable } from './status.ts';
import type { ObjectStore } from './store.ts';

const pods = resourceFor('Pod');

/**
 * A one-node kubelet: every Pod in the store runs as a PodRuntime (each of its containers a local
 * process); a Pod marked for deletion is stopped (SIGTERM, then SIGKILL after its grace period,
 * capped at 5 s) and only then removed.
 * Each pod gets its own loopback IP; the /16 inside 127/8 is random per fake so that fakes in
 * parallel test files do not bind the same address and port.
 */
export class Kubelet implements PodAccess {
  private readonly runtimes = new Map<string, PodRuntime>();
  private readonly prefix = `127.${randomInt(1, 255)}.${randomInt(0, 256)}`;
  private nextHost = 2;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly images: Record<string, ImageCommand>,
  ) {}

  start(): void {
    this.unsubscribe = this.store.subscribe((change) => {
      if (change.resource !== pods) return;
      const { namespace, name, deletionTimestamp } = change.object.metadata;
      const key = `${namespace}/${name}`;
      if (change.type === 'ADDED' && !this.runtimes.has(key)) {
        const runtime = new PodRuntime(this.store, namespace, name, this.allocateAddress(), this.images);
        this.runtimes.set(key, runtime);
        setImmediate(() => runtime.start());
      } else if (change.type === 'MODIFIED' && deletionTimestamp) {
        const runtime = this.runtimes.get(key);
        const grace = Number(change.object.metadata.deletionGracePeriodSeconds ?? 30);
        void (runtime ? runtime.terminate(grace) : Promise.resolve()).then(() => {
          this.runtimes.delete(key);
          // Recorded: the moment the pod is gone (process stopped), after the request that deleted it.
          this.store.remove(pods, namespace, name, { verb: 'delete', actor: 'kubelet' });
        });
      } else if (change.type === 'DELETED') {
        void this.runtimes.get(key)?.terminate(0);
        this.runtimes.delete(key);
      }
    });
  }

  /** SIGKILL every container of the pod; each is restarted (restartCount + 1). */
  killPod(namespace: string, name: string): void {
    this.runtime(namespace, name).kill();
  }

  /** SIGKILL one container of the pod; only it is restarted. */
  killContainer(namespace: string, name: string, container: string): void {
    const runtime = this.runtime(namespace, name).container(container);
    if (!runtime) throw new Error(`pod ${namespace}/${name} has no container ${container}`);
    runtime.kill();
  }

  runningAddress(namespace: string, name: string): string {
    const runtime = this.runtimes.get(`${namespace}/${name}`);
    if (!runtime?.running) throw serviceUnavailable(`pod ${namespace}/${name} is not running`);
    return runtime.address;
  }

  logs(namespace: string, name: string, options: LogOptions): string {
    const pod = this.store.get(pods, namespace, name);
    if (!pod) throw notFound(pods, name);
    const container = logContainerName(pod, options.container);
    return containerLog(this.runtimes.get(`${namespace}/${name}`)?.container(container), container, name, options);
  }

  /** Stops every pod process (grace capped at 1 s: the fake is going away). */
  async close(): Promise<void> {
    this.unsubscribe?.();
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.terminate(Math.min(1, MAX_GRACE_SECONDS))));
    this.runtimes.clear();
  }

  private runtime(namespace: string, name: string): PodRuntime {
    const runtime = this.runtimes.get(`${namespace}/${name}`);
    if (!runtime) throw new Error(`no pod ${namespace}/${name} runs on the fake kubelet`);
    return runtime;
  }

  private allocateAddress(): string {
    const host = 2 + ((this.nextHost++ - 2) % 252);
    return `${this.prefix}.${host}`;
  }
}
