import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerProcesses } from './container-processes.ts';
import { LogBuffer } from './log-buffer.ts';
import { ContainerWaiting, resolveEnvironment } from './pod-environment.ts';
import { type HostMount, materializeVolumes, toHostPath } from './pod-volumes.ts';
import { probeOnce } from './probes.ts';
import { resourceFor } from './resources.ts';
import { nowTimestamp, type ObjectStore } from './store.ts';

/** What an image means on this host: the command the fake kubelet runs for a pod's container. */
export type ImageCommand = (pod: any) => { command: string; args: string[]; env?: Record<string, string> };

const pods = resourceFor('Pod');
const RETRY_MS = 250;
const PROBE_PERIOD_MS = 200;
const MAX_BACKOFF_MS = 2000;
export const MAX_GRACE_SECONDS = 5;

type State = { waiting: { reason: string; message?: string } } | { running: { startedAt: string } } | { terminated: { exitCode: number; reason: string; signal?: number; startedAt: string; finishedAt: string } };

/**
 * One pod on the fake kubelet: its (first) container as a real local process in its own process
 * group, restarted with a short backoff on exit (restartPolicy Always), its readiness probed, its
 * status written back to the store. Container paths become host temp paths (see toHostPath).
 */
export class PodRuntime {
  private readonly root = mkdtempSync(join(tmpdir(), 'occ-fake-pod-'));
  private child: ChildProcess | undefined;
  private processes: ContainerProcesses | undefined;
  private exited: Promise<void> = Promise.resolve();
  private mounts: HostMount[] | undefined;
  private state: State = { waiting: { reason: 'ContainerCreating' } };
  private lastState: State | undefined;
  private ready = false;
  private restartCount = 0;
  private startedOnce = false;
  private timer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private readonly startTime = nowTimestamp();
  private readonly since = new Map<string, string>();
  logs = new LogBuffer();
  previousLogs: LogBuffer | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly namespace: string,
    readonly name: string,
    readonly address: string,
    private readonly images: Record<string, ImageCommand>,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get containerName(): string | undefined {
    return this.pod()?.spec.containers?.[0]?.name;
  }

  start(): void {
    this.publish();
    this.tryStart();
  }

  /** SIGKILL the container's processes (the kubelet then restarts it). */
  kill(): void {
    this.processes?.refresh();
    this.signal('SIGKILL');
    this.processes?.killAll();
  }

  /** SIGTERM the process group, SIGKILL after the grace period (at most 5 s); then the temp dirs go. */
  terminate(graceSeconds: number): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.timer);
      if (this.running) {
        this.processes?.refresh();
        this.signal('SIGTERM');
        const grace = Math.min(Math.max(graceSeconds, 0), MAX_GRACE_SECONDS) * 1000;
        const killer = setTimeout(() => this.kill(), grace);
        await this.exited;
        clearTimeout(killer);
      }
      await this.allGone();
      rmSync(this.root, { recursive: true, force: true });
    })();
    return this.stopping;
  }

  private pod(): any | undefined {
    return this.store.get(pods, this.namespace, this.name);
  }

  private retry(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tryStart(), delayMs);
  }

  private tryStart(): void {
    if (this.stopping) return;
    const pod = this.pod();
    if (!pod) return;
    const container = pod.spec.containers[0];
    const image = this.images[container.image];
    if (!image) {
      // An image this host cannot run stays unpullable, like a missing registry image.
      this.setState({ waiting: { reason: 'ErrImagePull', message: `failed to pull and unpack image "${container.image}": not found` } });
      return;
    }
    let env: Record<string, string>;
    try {
      this.mounts ??= materializeVolumes(this.store, pod, container, this.root);
      const resolved = resolveEnvironment(this.store, pod, container);
      env = Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, toHostPath(v, this.mounts!)]));
    } catch (error) {
      if (!(error instanceof ContainerWaiting)) throw error;
      this.mounts = undefined;
      this.setState({ waiting: { reason: error.reason, message: error.message } });
      this.retry(RETRY_MS);
      return;
    }
    const launch = image(pod);
    const cwd = container.workingDir ? toHostPath(container.workingDir, this.mounts) : this.root;
    if (this.startedOnce) {
      this.restartCount++;
      this.previousLogs = this.logs;
      this.logs = new LogBuffer();
    }
    this.startedOnce = true;
    // An image brings PATH; its own defaults come next; the pod's env wins.
    const child = spawn(launch.command, launch.args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...launch.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.processes = child.pid ? new ContainerProcesses(child.pid) : undefined;
    const startedAt = nowTimestamp();
    child.stdout!.on('data', (chunk: Buffer) => this.logs.append(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.logs.append(chunk));
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        this.logs.append(Buffer.from(`${error.message}\n`));
      });
      child.once('close', (code, signal) => {
        this.onExit(code, signal, startedAt);
        resolve();
      });
    });
    this.ready = false;
    this.setState({ running: { startedAt } });
    void this.probeLoop(child, container);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null, startedAt: string): void {
    // When a container's main process ends, everything else in the container ends with it.
    this.signal('SIGKILL');
    this.processes?.killAll();
    const signalNumber = signal ? ({ SIGKILL: 9, SIGTERM: 15, SIGINT: 2 } as Record<string, number>)[signal] ?? 1 : undefined;
    const exitCode = code ?? 128 + (signalNumber ?? 0);
    const terminated: State = { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', ...(signalNumber ? { signal: signalNumber } : {}), startedAt, finishedAt: nowTimestamp() } };
    this.ready = false;
    if (this.stopping) {
      this.setState(terminated);
      return;
    }
    const policy = this.pod()?.spec.restartPolicy ?? 'Always';
    if (policy === 'Never' || (policy === 'OnFailure' && exitCode === 0)) {
      this.setState(terminated);
      return;
    }
    this.lastState = terminated;
    const backoff = Math.min(250 * 2 ** this.restartCount, MAX_BACKOFF_MS);
    this.setState({ waiting: { reason: 'CrashLoopBackOff', message: `back-off ${backoff}ms restarting failed container` } });
    this.retry(backoff);
  }

  private async probeLoop(child: ChildProcess, container: any): Promise<void> {
    const probe = container.readinessProbe;
    while (this.child === child && this.running && !this.stopping) {
      this.processes?.refresh();
      const ok = probe ? await probeOnce(probe, this.address, container) : true;
      if (this.child !== child || !this.running || this.stopping) return;
      if (ok !== this.ready) {
        this.ready = ok;
        this.publish();
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_PERIOD_MS));
    }
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  /** Waits (up to 2 s) until no process of the container (its group, its remembered tree) remains. */
  private async allGone(): Promise<void> {
    const pid = this.child?.pid;
    if (!pid) return;
    for (let i = 0; i < 40; i++) {
      let group = true;
      try {
        process.kill(-pid, 0);
      } catch {
        group = false;
      }
      if (!group && !this.processes?.alive()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private setState(state: State): void {
    this.state = state;
    this.publish();
  }

  private transition(type: string, status: string): string {
    const key = `${type}=${status}`;
    if (!this.since.has(key)) {
      for (const k of [...this.since.keys()]) if (k.startsWith(`${type}=`)) this.since.delete(k);
      this.since.set(key, nowTimestamp());
    }
    return this.since.get(key)!;
  }

  /** Writes the pod's status as the real kubelet shapes it. */
  private publish(): void {
    const pod = this.pod();
    if (!pod) return;
    const container = pod.spec.containers[0];
    const running = 'running' in this.state;
    const ready = running && this.ready;
    const condition = (type: string, value: boolean) => ({ type, status: value ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: this.transition(type, String(value)) });
    const terminatedForGood = 'terminated' in this.state && !this.stopping;
    pod.spec.nodeName ??= 'fake-node';
    pod.status = {
      phase: phaseOf(this.state, this.startedOnce, terminatedForGood),
      conditions: [condition('PodReadyToStartContainers', true), condition('Initialized', true), condition('Ready', ready), condition('ContainersReady', ready), condition('PodScheduled', true)],
      hostIP: '127.0.0.1',
      hostIPs: [{ ip: '127.0.0.1' }],
      podIP: this.address,
      podIPs: [{ ip: this.address }],
      startTime: this.startTime,
      containerStatuses: [
        {
          name: container.name,
          state: this.state,
          lastState: this.lastState ?? {},
          ready,
          restartCount: this.restartCount,
          image: container.image,
          imageID: '',
          ...(this.child?.pid ? { containerID: `fake://${pod.metadata.uid}/${this.restartCount}` } : {}),
          started: running,
        },
      ],
      qosClass: 'BestEffort',
    };
    this.store.update(pods, pod);
  }
}

function phaseOf(state: State, startedOnce: boolean, terminatedForGood: boolean): string {
  if (!startedOnce) return 'Pending';
  if (terminatedForGood && 'terminated' in state) return state.terminated.exitCode === 0 ? 'Succeeded' : 'Failed';
  return 'Running';
}
