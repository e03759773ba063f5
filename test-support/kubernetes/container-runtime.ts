import { type ChildProcess, spawn } from 'node:child_process';
import { ContainerProcesses } from './container-processes.ts';
import { LogBuffer } from './log-buffer.ts';
import { ContainerWaiting } from './pod-environment.ts';
import type { ContainerState, ContainerStatus } from './pod-status.ts';
import { probeOnce } from './probes.ts';
import { nowTimestamp } from './store.ts';

/** What an image means on this host: the command the fake kubelet runs for a pod's container. */
export type ImageCommand = (pod: any, container: any) => { command: string; args: string[]; env?: Record<string, string> };

/**
 * What a container gets from its pod (the CRI's "pod sandbox"): the pod object, the address all
 * of the pod's containers share, the environment and working directory built from the pod's
 * volumes (which the pod sets up once), and a way to say the pod's status must be written again.
 */
export interface PodSandbox {
  readonly address: string;
  pod(): any | undefined;
  /** Throws ContainerWaiting when the container cannot start yet (a missing Secret, say). */
  containerConfig(pod: any, container: any): { env: Record<string, string>; cwd: string };
  changed(): void;
}

const RETRY_MS = 250;
const PROBE_PERIOD_MS = 200;
const MAX_BACKOFF_MS = 2000;
export const MAX_GRACE_SECONDS = 5;

const SIGNAL_NUMBERS: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };

/**
 * One container of a pod on the fake kubelet: a real local process in its own process group,
 * restarted with a short backoff when it exits (as the pod's restartPolicy says), its readiness
 * probed against the pod's address, its logs kept for this start and the previous one.
 */
export class ContainerRuntime {
  private child: ChildProcess | undefined;
  private processes: ContainerProcesses | undefined;
  private exited: Promise<void> = Promise.resolve();
  private state: ContainerState = { waiting: { reason: 'ContainerCreating' } };
  private lastState: ContainerState | undefined;
  private probedReady = false;
  private restartCount = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** True once a process was started: from then on the container has logs (pods/log answers). */
  startedOnce = false;
  logs = new LogBuffer();
  previousLogs: LogBuffer | undefined;

  constructor(
    readonly name: string,
    private readonly sandbox: PodSandbox,
    private readonly images: Record<string, ImageCommand>,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Why the container is not running, when it waits. */
  get waitingReason(): string | undefined {
    return 'waiting' in this.state ? this.state.waiting.reason : undefined;
  }

  /** Called by the pod once its volumes are set up. */
  start(): void {
    this.tryStart();
  }

  /** The pod cannot start any container yet (its volumes are not set up). */
  wait(reason: string, message: string): void {
    this.setState({ waiting: { reason, message } });
  }

  /** SIGKILL the container's processes (the exit handler then restarts it, as the policy says). */
  kill(): void {
    if (!this.running) return;
    this.killAll();
  }

  /** SIGTERM the process group, SIGKILL after the grace period (at most 5 s); no restart after. */
  async stop(graceSeconds: number): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    if (this.running) {
      this.processes?.refresh();
      this.processes?.signalGroup('SIGTERM');
      const grace = Math.min(Math.max(graceSeconds, 0), MAX_GRACE_SECONDS) * 1000;
      const killer = setTimeout(() => this.kill(), grace);
      await this.exited;
      clearTimeout(killer);
    }
    await this.processes?.gone();
  }

  /** This container's entry of `status.containerStatuses`. */
  status(pod: any): ContainerStatus {
    const container = pod.spec.containers.find((c: any) => c.name === this.name);
    const running = 'running' in this.state;
    return {
      name: this.name,
      state: this.state,
      lastState: this.lastState ?? {},
      ready: running && this.probedReady,
      restartCount: this.restartCount,
      image: container?.image ?? '',
      imageID: '',
      // Unique per container and start, as a runtime's container id is.
      ...(this.child?.pid ? { containerID: `fake://${pod.metadata.uid}/${this.name}/${this.restartCount}` } : {}),
      started: running,
    };
  }

  private retry(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tryStart(), delayMs);
  }

  private tryStart(): void {
    if (this.stopping) return;
    const pod = this.sandbox.pod();
    const container = pod?.spec.containers.find((c: any) => c.name === this.name);
    if (!container) return;
    const image = this.images[container.image];
    if (!image) {
      // An image this host cannot run stays unpullable, like a missing registry image.
      this.setState({ waiting: { reason: 'ErrImagePull', message: `failed to pull and unpack image "${container.image}": not found` } });
      return;
    }
    let config: { env: Record<string, string>; cwd: string };
    try {
      config = this.sandbox.containerConfig(pod, container);
    } catch (error) {
      if (!(error instanceof ContainerWaiting)) throw error;
      this.setState({ waiting: { reason: error.reason, message: error.message } });
      this.retry(RETRY_MS);
      return;
    }
    const launch = image(pod, container);
    if (this.startedOnce) {
      this.restartCount++;
      this.previousLogs = this.logs;
      this.logs = new LogBuffer();
    }
    this.startedOnce = true;
    // An image brings PATH; its own defaults come next; the pod's env wins. Detached: the
    // container's own process group, so signals reach everything it started in it.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...launch.env, ...config.env };
    const child = spawn(launch.command, launch.args, { cwd: config.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.processes = child.pid ? new ContainerProcesses(child.pid) : undefined;
    const startedAt = nowTimestamp();
    const logs = this.logs;
    child.stdout!.on('data', (chunk: Buffer) => logs.append(chunk));
    child.stderr!.on('data', (chunk: Buffer) => logs.append(chunk));
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => logs.append(Buffer.from(`${error.message}\n`)));
      child.once('close', (code, signal) => {
        this.onExit(code, signal, startedAt);
        resolve();
      });
    });
    this.probedReady = false;
    this.setState({ running: { startedAt } });
    void this.probeLoop(child, container);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null, startedAt: string): void {
    // When a container's main process ends, everything else in the container ends with it.
    this.killAll();
    const signalNumber = signal ? (SIGNAL_NUMBERS[signal] ?? 1) : undefined;
    const exitCode = code ?? 128 + (signalNumber ?? 0);
    const terminated: ContainerState = {
      terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', ...(signalNumber ? { signal: signalNumber } : {}), startedAt, finishedAt: nowTimestamp() },
    };
    this.probedReady = false;
    const policy = this.sandbox.pod()?.spec.restartPolicy ?? 'Always';
    if (this.stopping || policy === 'Never' || (policy === 'OnFailure' && exitCode === 0)) {
      this.setState(terminated);
      return;
    }
    this.lastState = terminated;
    const backoff = Math.min(250 * 2 ** this.restartCount, MAX_BACKOFF_MS);
    this.setState({ waiting: { reason: 'CrashLoopBackOff', message: `back-off ${backoff}ms restarting failed container=${this.name}` } });
    this.retry(backoff);
  }

  private killAll(): void {
    this.processes?.refresh();
    this.processes?.signalGroup('SIGKILL');
    this.processes?.killAll();
  }

  private async probeLoop(child: ChildProcess, container: any): Promise<void> {
    const probe = container.readinessProbe;
    const current = () => this.child === child && this.running && !this.stopping;
    while (current()) {
      // Also the moment to remember the container's process tree (see ContainerProcesses).
      this.processes?.refresh();
      const ok = probe ? await probeOnce(probe, this.sandbox.address, container) : true;
      if (!current()) return;
      if (ok !== this.probedReady) {
        this.probedReady = ok;
        this.sandbox.changed();
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_PERIOD_MS));
    }
  }

  private setState(state: ContainerState): void {
    this.state = state;
    this.sandbox.changed();
  }
}
