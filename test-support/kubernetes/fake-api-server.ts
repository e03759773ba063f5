import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { throwawayTls } from '../throwaway-tls.ts';
import { startGarbageCollector } from './deletion.ts';
import { startDeploymentController } from './deployment-controller.ts';
import { Kubelet } from './kubelet.ts';
import { kubeConfigFor } from './kubeconfig.ts';
import { ObjectApi } from './object-api.ts';
import type { ImageCommand } from './container-runtime.ts';
import { createRouter, type PodAccess } from './router.ts';
import { apiVersionOf, resourceFor } from './resources.ts';
import { serviceUnavailable, badRequest } from './status.ts';
import { ObjectStore, type RecordedEvent } from './store.ts';

export type { ImageCommand } from './container-runtime.ts';
export type { RecordedEvent } from './store.ts';

export interface FakeApiServerOptions {
  /** The bearer token the server requires (default: random). */
  token?: string;
  /** Image → the host command the kubelet runs for a container of it; an image not listed never pulls. */
  images: Record<string, ImageCommand>;
  /** Run pods as local processes (default true); without it pods stay Pending. */
  kubelet?: boolean;
}

export interface FakeApiServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The CA certificate (PEM) the server's certificate chains to. */
  ca: string;
  token: string;
  /** A kubeconfig (JSON, valid YAML): this cluster with certificate-authority-data, the bearer user. */
  kubeConfig(): string;
  /** Deep copies of the stored objects of a kind (`Deployment` or `deployments`), with kind and apiVersion. */
  objects(kind: string, namespace?: string): any[];
  /**
   * The order in which requests (actor `client`) and the fake itself created, changed and deleted
   * objects: the deployment controller creates and deletes pods, the garbage collector deletes
   * dependents, the kubelet records a pod gone (process stopped) after its graceful delete.
   * Status writes are not recorded.
   */
  events: RecordedEvent[];
  /** SIGKILL every container's processes; the kubelet restarts each container (restartCount + 1). */
  killPod(namespace: string, name: string): void;
  /** SIGKILL one container's processes; the kubelet restarts just that container (its restartCount + 1). */
  killContainer(namespace: string, name: string, container: string): void;
  /** Stops every pod process, then the server. */
  close(): Promise<void>;
}

/**
 * A Kubernetes API server for tests, speaking the real wire format over HTTPS (the real
 * `@kubernetes/client-node` works against it unchanged), with a deployment controller, a
 * garbage collector and a one-node kubelet that runs pods as real local processes.
 * See test-support/kubernetes/README.md for what it serves and where it differs.
 */
export async function startFakeApiServer(options: FakeApiServerOptions): Promise<FakeApiServer> {
  const token = options.token ?? randomBytes(24).toString('hex');
  const tls = throwawayTls();
  const store = new ObjectStore();
  const withKubelet = options.kubelet ?? true;
  const kubelet = withKubelet ? new Kubelet(store, options.images) : undefined;
  const pods: PodAccess = kubelet ?? {
    logs: (_ns, name) => {
      throw badRequest(`container in pod "${name}" is waiting to start: ContainerCreating`);
    },
    runningAddress: (ns, name) => {
      throw serviceUnavailable(`pod ${ns}/${name} is not running`);
    },
  };
  const api = new ObjectApi(store, withKubelet);
  const stopCollector = startGarbageCollector(store, withKubelet);
  const stopController = startDeploymentController(store, withKubelet);
  kubelet?.start();

  const router = createRouter({ token, store, api, pods });
  const server = createServer({ cert: tls.cert, key: tls.key }, (request, response) => void router(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    ca: tls.ca,
    token,
    kubeConfig: () => kubeConfigFor(url, tls.ca, token),
    objects: (kind, namespace) => {
      const type = resourceFor(kind);
      return store.list(type, namespace).map((o) => ({ ...o, apiVersion: apiVersionOf(type), kind: type.kind }));
    },
    events: store.events,
    killPod: (namespace, name) => {
      if (!kubelet) throw new Error('the fake API server runs without a kubelet');
      kubelet.killPod(namespace, name);
    },
    killContainer: (namespace, name, container) => {
      if (!kubelet) throw new Error('the fake API server runs without a kubelet');
      kubelet.killContainer(namespace, name, container);
    },
    close: async () => {
      stopController();
      stopCollector();
      await kubelet?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
