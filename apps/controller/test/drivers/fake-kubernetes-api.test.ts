import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeApiServer, startFakeApiServer } from '../../../../test-support/kubernetes/fake-api-server.ts';

// The fake Kubernetes API server of test-support, driven by the real `@kubernetes/client-node`:
// if the real client works against it unchanged, the kubernetes ComputeDriver's tests mean
// something. Its kubelet runs a tiny Node HTTP server as each pod's container.

// The pod's program: serves what it sees (headers, environment, mounted files) on its pod IP and
// writes `start`/`stop` lines to a trace file so the test can see the order processes ran in.
const TINY_SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const env = process.env;
fs.appendFileSync(env.TRACE_FILE, 'start ' + process.pid + '\\n');
console.log('serving ' + env.POD_NAME);
http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({
    path: req.url, headers: req.headers, pid: process.pid, podIp: env.POD_IP, greeting: env.GREETING, token: env.TOKEN,
    configPath: env.CONFIG_PATH, config: fs.readFileSync(env.CONFIG_PATH, 'utf8'),
    configMode: fs.statSync(env.CONFIG_PATH).mode & 0o777, scratchMode: fs.statSync(env.SCRATCH).mode & 0o777,
  }));
}).listen(8080, env.POD_IP);
process.on('SIGTERM', () => setTimeout(() => { fs.appendFileSync(env.TRACE_FILE, 'stop ' + process.pid + '\\n'); process.exit(0); }, 300));
`;

// A container whose child leaves its process group (as the runtime's gateway and CLI children do).
const DAEMONIZING = `
const child = require('node:child_process').spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
console.log('grandchild ' + child.pid);
setInterval(() => {}, 1000);
`;

// A two-container pod. The server container writes into the emptyDir it mounts at $DATA and
// serves HTTP on the pod's IP; the client container, which mounts the same emptyDir elsewhere
// ($SHARED), reads that file and calls the server at the pod's IP, and is ready only once told.
const PAIR_SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const env = process.env;
fs.writeFileSync(env.DATA + '/from-server.txt', 'written by server ' + process.pid);
console.log('server up ' + process.pid);
http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ pid: process.pid, who: env.WHO }));
}).listen(8081, env.POD_IP);
`;
const PAIR_CLIENT = `
const http = require('node:http');
const fs = require('node:fs');
const env = process.env;
let ready = false;
console.log('client up ' + process.pid);
const askServer = () => new Promise((resolve) => {
  http.get({ host: env.POD_IP, port: 8081, path: '/' }, (res) => {
    let text = '';
    res.on('data', (chunk) => (text += chunk));
    res.on('end', () => resolve(JSON.parse(text)));
  }).on('error', (error) => resolve({ error: error.message }));
});
http.createServer(async (req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/ready') { res.statusCode = ready ? 200 : 503; return res.end('{}'); }
  if (req.url === '/make-ready') { ready = true; return res.end('{}'); }
  let shared = null;
  try { shared = fs.readFileSync(env.SHARED + '/from-server.txt', 'utf8'); } catch {}
  res.end(JSON.stringify({ pid: process.pid, who: env.WHO, podIp: env.POD_IP, server: await askServer(), shared, sharedPath: env.SHARED }));
}).listen(8082, env.POD_IP);
`;

let fake: FakeApiServer;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let kubeConfig: k8s.KubeConfig;
const scratch = mkdtempSync(join(tmpdir(), 'occ-fake-k8s-test-'));

beforeAll(async () => {
  fake = await startFakeApiServer({
    images: {
      'tiny:test': () => ({ command: process.execPath, args: ['-e', TINY_SERVER] }),
      'tree:test': () => ({ command: process.execPath, args: ['-e', DAEMONIZING] }),
      'pair-server:test': () => ({ command: process.execPath, args: ['-e', PAIR_SERVER] }),
      'pair-client:test': () => ({ command: process.execPath, args: ['-e', PAIR_CLIENT] }),
    },
  });
  kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(fake.kubeConfig());
  core = kubeConfig.makeApiClient(k8s.CoreV1Api);
  apps = kubeConfig.makeApiClient(k8s.AppsV1Api);
});

afterAll(async () => {
  await fake?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The Status body of a refused call, as the client surfaces it. */
async function refusal(call: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await call;
  } catch (error) {
    const { code, body } = error as { code: number; body: string };
    return { code, body: JSON.parse(body) };
  }
  throw new Error('the call was not refused');
}

/** Reads until `accept`; a read that throws (a pod's process not listening yet: 503) is "not yet" until the deadline. */
async function eventually<T>(read: () => Promise<T> | T, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let seen: { value: T } | { error: unknown };
    try {
      seen = { value: await read() };
    } catch (error) {
      seen = { error };
    }
    if ('value' in seen && accept(seen.value)) return seen.value;
    if (Date.now() > deadline) {
      if ('error' in seen) throw seen.error;
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(seen.value).slice(0, 2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

describe('fake Kubernetes API server: objects', () => {
  it('creates, reads and lists objects with server metadata, label and field selectors; refuses a second create with 409 AlreadyExists and a missing object with 404', async () => {
    const namespace = 'objects';
    const created = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'one', labels: { tier: 'a', app: 'x' } }, data: { k: 'v' } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'two', labels: { tier: 'b' } }, data: {} } });
    await core.createNamespacedConfigMap({ namespace: 'elsewhere', body: { metadata: { name: 'one' } } });
    expect(created.metadata).toMatchObject({ name: 'one', namespace, uid: expect.stringMatching(/^[0-9a-f-]{36}$/), resourceVersion: expect.stringMatching(/^\d+$/) });
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);

    const names = async (labelSelector?: string, fieldSelector?: string) =>
      (await core.listNamespacedConfigMap({ namespace, labelSelector, fieldSelector })).items.map((i) => i.metadata?.name);
    expect(await names()).toEqual(['one', 'two']);
    expect(await names('tier=a')).toEqual(['one']);
    expect(await names('tier!=a')).toEqual(['two']);
    expect(await names('tier in (a,b),app')).toEqual(['one']);
    expect(await names('tier notin (a)')).toEqual(['two']);
    expect(await names('!app')).toEqual(['two']);
    expect(await names(undefined, 'metadata.name=two')).toEqual(['two']);
    expect((await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.name=one' })).items).toHaveLength(2);

    const duplicate = await refusal(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'one' } } }));
    expect(duplicate).toEqual({
      code: 409,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "one" already exists',
        reason: 'AlreadyExists',
        details: { name: 'one', kind: 'configmaps' },
        code: 409,
      },
    });
    const missing = await refusal(apps.readNamespacedDeployment({ namespace, name: 'nope' }));
    expect(missing.body).toMatchObject({
      reason: 'NotFound',
      code: 404,
      message: 'deployments.apps "nope" not found',
      details: { name: 'nope', group: 'apps', kind: 'deployments' },
    });
  });

  it('answers 401 Unauthorized (a Status) without the right bearer token', async () => {
    const ask = (authorization?: string) =>
      new Promise<{ code: number; body: any }>((resolve, reject) => {
        const url = new URL('/api/v1/namespaces/x/configmaps', fake.url);
        const call = httpsRequest(url, { ca: fake.ca, headers: authorization ? { authorization } : {} }, (answer) => {
          let text = '';
          answer.on('data', (chunk) => (text += chunk));
          answer.on('end', () => resolve({ code: answer.statusCode ?? 0, body: JSON.parse(text) }));
        });
        call.on('error', reject);
        call.end();
      });
    const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
    expect(await ask()).toEqual({ code: 401, body: unauthorized });
    expect(await ask('Bearer not-the-token')).toEqual({ code: 401, body: unauthorized });
    expect((await ask(`Bearer ${fake.token}`)).code).toBe(200);
  });

  it("validates every write (422 Invalid): schema, DNS-1123 names, an immutable ConfigMap, a Deployment's immutable selector", async () => {
    const namespace = 'invalid';
    const badName = await refusal(core.createNamespacedSecret({ namespace, body: { metadata: { name: 'Not_DNS' } } }));
    expect(badName.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      details: { name: 'Not_DNS', kind: 'Secret', causes: [{ field: 'metadata.name' }] },
    });
    expect(badName.body.message).toMatch(/^Secret "Not_DNS" is invalid: metadata\.name: Invalid value: "Not_DNS": a lowercase RFC 1123 subdomain/);

    const schema = await refusal(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'typed' }, data: { n: 1 as never } } }));
    expect(schema.body).toMatchObject({ reason: 'Invalid', code: 422, details: { causes: [{ field: 'data.n' }] } });

    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'frozen' }, immutable: true, data: { k: 'v' } } });
    const frozen = await refusal(core.patchNamespacedConfigMap({ namespace, name: 'frozen', body: { data: { k: 'changed' } } }, merge));
    expect(frozen.body).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(frozen.body.message).toContain('field is immutable');

    await apps.createNamespacedDeployment({ namespace, body: deployment('sel', 'none:image') });
    const selector = await refusal(
      apps.patchNamespacedDeployment(
        { namespace, name: 'sel', body: { spec: { selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } } } } } },
        merge,
      ),
    );
    expect(selector.body).toMatchObject({ reason: 'Invalid', code: 422, details: { kind: 'Deployment', group: 'apps' } });
    expect(selector.body.message).toMatch(/^Deployment\.apps "sel" is invalid: spec\.selector: .*field is immutable/);
  });

  it('replaces only at the current resourceVersion (409 Conflict otherwise); patches as merge, strategic (treated as merge) and JSON patch', async () => {
    const namespace = 'writes';
    const first = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'cm' }, data: { a: '1' } } });
    const second = await core.replaceNamespacedConfigMap({ namespace, name: 'cm', body: { ...first, data: { a: '2' } } });
    expect(Number(second.metadata?.resourceVersion)).toBeGreaterThan(Number(first.metadata?.resourceVersion));
    const stale = await refusal(core.replaceNamespacedConfigMap({ namespace, name: 'cm', body: { ...first, data: { a: '3' } } }));
    expect(stale.body).toMatchObject({
      reason: 'Conflict',
      code: 409,
      message: 'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'cm', kind: 'configmaps' },
    });

    expect((await core.patchNamespacedConfigMap({ namespace, name: 'cm', body: { data: { b: 'x' } } }, merge)).data).toEqual({ a: '2', b: 'x' });
    expect((await core.patchNamespacedConfigMap({ namespace, name: 'cm', body: { data: { a: null } } }, strategic)).data).toEqual({ b: 'x' });
    const jsonPatched = await core.patchNamespacedConfigMap({
      namespace,
      name: 'cm',
      body: [
        { op: 'add', path: '/data/c', value: 'y' },
        { op: 'remove', path: '/data/b' },
      ],
    });
    expect(jsonPatched.data).toEqual({ c: 'y' });

    const secret = await core.createNamespacedSecret({ namespace, body: { metadata: { name: 's' }, stringData: { TOKEN: 'plain' } } });
    expect(secret.data).toEqual({ TOKEN: Buffer.from('plain').toString('base64') });
    expect(secret.stringData).toBeUndefined();
    expect(secret.type).toBe('Opaque');
  });

  it("streams watch events (ADDED, MODIFIED, DELETED) from a list's resourceVersion, as newline-delimited JSON", async () => {
    const namespace = 'watched';
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before', labels: { w: 'yes' } } } });
    const listed = await core.listNamespacedConfigMap({ namespace });
    const seen: Array<[string, string | undefined]> = [];
    const watching = await new k8s.Watch(kubeConfig).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      { resourceVersion: listed.metadata?.resourceVersion, labelSelector: 'w=yes' },
      (type, object) => seen.push([type, object.metadata?.name]),
      () => undefined,
    );
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'cm', labels: { w: 'yes' } } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'unlabelled' } } });
    await core.patchNamespacedConfigMap({ namespace, name: 'cm', body: { data: { k: 'v' } } }, merge);
    await core.deleteNamespacedConfigMap({ namespace, name: 'cm' });
    // Entering and leaving the selector are ADDED and DELETED for this watch, as on the real server.
    await core.patchNamespacedConfigMap({ namespace, name: 'unlabelled', body: { metadata: { labels: { w: 'yes' } } } }, merge);
    await core.patchNamespacedConfigMap({ namespace, name: 'unlabelled', body: { metadata: { labels: { w: null } } } }, merge);
    await eventually(
      () => seen.length,
      (n) => n >= 5,
    );
    watching.abort();
    expect(seen).toEqual([
      ['ADDED', 'cm'],
      ['MODIFIED', 'cm'],
      ['DELETED', 'cm'],
      ['ADDED', 'unlabelled'],
      ['DELETED', 'unlabelled'],
    ]);
  });

  it('deletes the dependents of a deleted owner (ownerReferences, background)', async () => {
    const namespace = 'collected';
    const owner = await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'owner' } } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ServiceAccount', name: 'owner', uid: owner.metadata!.uid! }];
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owned', ownerReferences } } });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'owned', ownerReferences } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'free' } } });
    const deleted = await core.deleteNamespacedServiceAccount({ namespace, name: 'owner' });
    expect(deleted.metadata?.name).toBe('owner');
    await eventually(
      () => fake.objects('ConfigMap', namespace).map((o) => o.metadata.name),
      (left) => left.length === 1,
    );
    expect(fake.objects('ConfigMap', namespace).map((o) => o.metadata.name)).toEqual(['free']);
    expect(fake.objects('Secret', namespace)).toEqual([]);
    expect(fake.events.filter((e) => e.namespace === namespace && e.verb === 'delete').map((e) => [e.kind, e.actor])).toEqual(
      expect.arrayContaining([
        ['ServiceAccount', 'client'],
        ['ConfigMap', 'garbage-collector'],
        ['Secret', 'garbage-collector'],
      ]),
    );
  });
});

/** A Deployment of the tiny server: Recreate, its config projected, a Secret in its environment. */
function deployment(name: string, image = 'tiny:test', traceFile = '/dev/null', greeting = 'hello'): k8s.V1Deployment {
  return {
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 2,
          containers: [
            {
              name: 'web',
              image,
              ports: [{ name: 'http', containerPort: 8080 }],
              readinessProbe: { tcpSocket: { port: 'http' as never }, periodSeconds: 1 },
              env: [
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'GREETING', value: greeting },
                { name: 'TOKEN', valueFrom: { secretKeyRef: { name: `${name}-secret`, key: 'token', optional: false } } },
                { name: 'CONFIG_PATH', value: '/etc/web/config.json' },
                { name: 'SCRATCH', value: '/scratch' },
                { name: 'TRACE_FILE', value: traceFile },
              ],
              volumeMounts: [
                { name: 'config', mountPath: '/etc/web', readOnly: true },
                { name: 'scratch', mountPath: '/scratch' },
              ],
            },
          ],
          volumes: [
            { name: 'config', projected: { defaultMode: 0o440, sources: [{ configMap: { name: `${name}-config`, items: [{ key: 'config.json', path: 'config.json' }] } }] } },
            { name: 'scratch', emptyDir: {} },
          ],
        },
      },
    },
  };
}

describe('fake Kubernetes API server: deployment controller and kubelet', () => {
  const namespace = 'workloads';
  const podsOf = async (app: string) => (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items;
  const readyPod = (app: string) =>
    eventually(
      () => podsOf(app),
      (pods) => pods.length === 1 && !pods[0]!.metadata?.deletionTimestamp && pods[0]!.status?.containerStatuses?.[0]?.ready === true,
    ).then((pods) => pods[0]!);
  // The client parses a JSON answer itself (by its content type) despite its `string` type.
  const proxied = async (pod: k8s.V1Pod, path: string): Promise<any> => {
    const answer: unknown = await core.connectGetNamespacedPodProxyWithPath({ namespace, name: `${pod.metadata!.name}:8080`, path }, k8s.setHeaderOptions('X-Test', 'passed'));
    return typeof answer === 'string' ? JSON.parse(answer) : answer;
  };

  it("runs a Deployment's pod as a local process reached through pods/proxy (header kept, Authorization dropped); killPod restarts it; a new template is Recreated (old process gone first); logs; GC of pods", async () => {
    const trace = join(scratch, 'trace');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'web-config' }, data: { 'config.json': '{"answer":42}' }, immutable: true } });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'web-secret' }, stringData: { token: 'from-the-secret' } } });
    await apps.createNamespacedDeployment({ namespace, body: deployment('web', 'tiny:test', trace) });

    const first = await readyPod('web');
    expect(first.metadata?.name).toMatch(/^web-[a-z0-9]{10}-[a-z0-9]{5}$/);
    expect(first.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'web', controller: true })]);
    expect(first.status?.podIP).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(first.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const seen = await proxied(first, 'echo');
    expect(seen).toMatchObject({
      path: '/echo',
      podIp: first.status?.podIP,
      greeting: 'hello',
      token: 'from-the-secret',
      config: '{"answer":42}',
      configMode: 0o440,
      scratchMode: 0o700,
    });
    expect(seen.headers['x-test']).toBe('passed');
    expect(seen.headers.authorization).toBeUndefined();
    // The one difference from a real pod: container paths are rewritten to host paths.
    expect(seen.configPath).not.toBe('/etc/web/config.json');
    expect(seen.configPath).toMatch(/config\.json$/);

    const status = await eventually(
      () => apps.readNamespacedDeploymentStatus({ namespace, name: 'web' }),
      (d) => d.status?.readyReplicas === 1,
    );
    expect(status.status).toMatchObject({ observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 });
    expect(status.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
    expect(await core.readNamespacedPodLog({ namespace, name: first.metadata!.name!, container: 'web', tailLines: 5 })).toContain(`serving ${first.metadata!.name}`);

    fake.killPod(namespace, first.metadata!.name!);
    const restarted = await eventually(
      () => podsOf('web'),
      (pods) => pods[0]?.status?.containerStatuses?.[0]?.restartCount === 1 && pods[0]?.status?.containerStatuses?.[0]?.ready === true,
    );
    expect(restarted[0]!.metadata?.name).toBe(first.metadata?.name);
    expect(restarted[0]!.status?.containerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: 137, signal: 9 });
    const afterRestart = await proxied(restarted[0]!, 'again');
    expect(afterRestart.pid).not.toBe(seen.pid);

    // A changed template: Recreate stops the old pod (its process takes 300 ms to exit) before the new one is created.
    await apps.patchNamespacedDeployment({ namespace, name: 'web', body: [{ op: 'replace', path: '/spec/template/spec/containers/0/env/2/value', value: 'bonjour' }] });
    const second = await eventually(
      () => readyPod('web'),
      (pod) => pod.metadata?.name !== first.metadata?.name,
    );
    const renewed = await proxied(second, 'new');
    expect(renewed.greeting).toBe('bonjour');
    const lines = readFileSync(trace, 'utf8').trim().split('\n');
    expect(lines).toEqual([`start ${seen.pid}`, `start ${afterRestart.pid}`, `stop ${afterRestart.pid}`, `start ${renewed.pid}`]);
    const podEvents = fake.events.filter((e) => e.kind === 'Pod' && e.namespace === namespace).map((e) => `${e.actor} ${e.verb} ${e.name}`);
    expect(podEvents).toEqual([
      `deployment-controller create ${first.metadata!.name}`,
      `deployment-controller delete ${first.metadata!.name}`,
      `kubelet delete ${first.metadata!.name}`, // gone: its process has stopped
      `deployment-controller create ${second.metadata!.name}`,
    ]);
    expect((await apps.readNamespacedDeployment({ namespace, name: 'web' })).metadata?.generation).toBe(2);

    // Deleting the Deployment collects its pod, whose process is stopped.
    await apps.deleteNamespacedDeployment({ namespace, name: 'web' });
    await eventually(
      () => podsOf('web'),
      (pods) => pods.length === 0,
    );
    expect(readFileSync(trace, 'utf8').trim().split('\n').at(-1)).toBe(`stop ${renewed.pid}`);
  });

  it('keeps a pod waiting on an image it cannot run (ErrImagePull) and on a missing Secret (CreateContainerConfigError) until the Secret exists', async () => {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'late-config' }, data: { 'config.json': '{}' } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'pull-config' }, data: { 'config.json': '{}' } } });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'pull-secret' }, stringData: { token: 't' } } });
    await apps.createNamespacedDeployment({ namespace, body: deployment('pull', 'registry.example/unknown:1') });
    await apps.createNamespacedDeployment({ namespace, body: deployment('late') });

    const waiting = (app: string, reason: string) =>
      eventually(
        () => podsOf(app),
        (pods) => pods[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason === reason,
      );
    const pulling = await waiting('pull', 'ErrImagePull');
    expect(pulling[0]!.status?.phase).toBe('Pending');
    const late = await waiting('late', 'CreateContainerConfigError');
    expect(late[0]!.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe('secret "late-secret" not found');
    const notServing = await refusal(core.connectGetNamespacedPodProxyWithPath({ namespace, name: `${late[0]!.metadata!.name}:8080`, path: 'x' }));
    expect(notServing.body).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });

    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'late-secret' }, stringData: { token: 'arrived' } } });
    const ready = await readyPod('late');
    expect((await proxied(ready, 'x')).token).toBe('arrived');
    await apps.deleteNamespacedDeployment({ namespace, name: 'late' });
    await apps.deleteNamespacedDeployment({ namespace, name: 'pull' });
  });

  it('stops every process of a deleted pod, even a child in its own process group', async () => {
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'tree' },
        spec: { selector: { matchLabels: { app: 'tree' } }, template: { metadata: { labels: { app: 'tree' } }, spec: { containers: [{ name: 'main', image: 'tree:test' }] } } },
      },
    });
    const [pod] = await eventually(
      () => podsOf('tree'),
      (pods) => pods[0]?.status?.containerStatuses?.[0]?.ready === true,
    );
    const log = await eventually(
      () => core.readNamespacedPodLog({ namespace, name: pod!.metadata!.name! }),
      (text) => /grandchild \d+/.test(text),
    );
    const grandchild = Number(/grandchild (\d+)/.exec(log)![1]);
    // Give the kubelet one look at the process tree (it looks every 200 ms while the pod runs).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const live = () => {
      try {
        const stat = readFileSync(`/proc/${grandchild}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
      } catch {
        return false;
      }
    };
    expect(live()).toBe(true);
    await core.deleteNamespacedPod({ namespace, name: pod!.metadata!.name! });
    await eventually(
      () => fake.objects('Pod', namespace).filter((p) => p.metadata.name === pod!.metadata!.name),
      (left) => left.length === 0,
    );
    expect(live()).toBe(false);
    await apps.deleteNamespacedDeployment({ namespace, name: 'tree' });
  });

  it('runs every container of a pod: one address, a shared emptyDir, per-container logs (400 without or with a wrong name), Ready only when all are, killContainer restarts just that one', async () => {
    const podIp = { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } };
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'pair' },
        spec: {
          selector: { matchLabels: { app: 'pair' } },
          template: {
            metadata: { labels: { app: 'pair' } },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [
                {
                  name: 'server',
                  image: 'pair-server:test',
                  ports: [{ name: 'http', containerPort: 8081 }],
                  readinessProbe: { tcpSocket: { port: 'http' as never } },
                  env: [podIp, { name: 'WHO', value: 'server' }, { name: 'DATA', value: '/data' }],
                  volumeMounts: [{ name: 'shared', mountPath: '/data' }],
                },
                {
                  name: 'client',
                  image: 'pair-client:test',
                  readinessProbe: { httpGet: { path: '/ready', port: 8082 as never } },
                  env: [podIp, { name: 'WHO', value: 'client' }, { name: 'SHARED', value: '/shared' }],
                  volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
                },
              ],
              volumes: [{ name: 'shared', emptyDir: {} }],
            },
          },
        },
      },
    });
    const statuses = (pod: k8s.V1Pod) => pod.status?.containerStatuses ?? [];
    const condition = (pod: k8s.V1Pod, type: string) => pod.status?.conditions?.find((c) => c.type === type);
    const call = async (pod: k8s.V1Pod, port: number, path: string): Promise<any> => {
      const answer: unknown = await core.connectGetNamespacedPodProxyWithPath({ namespace, name: `${pod.metadata!.name}:${port}`, path });
      return typeof answer === 'string' ? JSON.parse(answer) : answer;
    };

    // Both run (one status per container, in spec order); the client is not ready yet, so neither is the pod.
    const [running] = await eventually(
      () => podsOf('pair'),
      (pods) => statuses(pods[0] ?? {}).every((s) => s.started) && statuses(pods[0]!)[0]?.ready === true,
    );
    const pod = running!;
    const name = pod.metadata!.name!;
    expect(statuses(pod).map((s) => [s.name, s.ready, s.restartCount])).toEqual([
      ['server', true, 0],
      ['client', false, 0],
    ]);
    expect(new Set(statuses(pod).map((s) => s.containerID)).size).toBe(2);
    expect(pod.status?.phase).toBe('Running');
    expect(condition(pod, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [client]' });
    expect(condition(pod, 'ContainersReady')?.status).toBe('False');

    // One address: the client reaches the server at the pod's IP; one emptyDir under two mount paths.
    const seen = await eventually(
      () => call(pod, 8082, 'state'),
      (state) => state.shared !== null && state.server.pid !== undefined,
    );
    const server = await call(pod, 8081, '');
    expect(seen).toMatchObject({ who: 'client', podIp: pod.status?.podIP, server: { who: 'server', pid: server.pid }, shared: `written by server ${server.pid}` });
    expect(seen.sharedPath).not.toBe('/shared');

    // Ready (and ContainersReady) once every container is.
    await call(pod, 8082, 'make-ready');
    const ready = await eventually(
      () => core.readNamespacedPod({ namespace, name }),
      (p) => condition(p, 'Ready')?.status === 'True',
    );
    expect(condition(ready, 'ContainersReady')?.status).toBe('True');
    expect(statuses(ready).map((s) => s.ready)).toEqual([true, true]);

    // Logs per container; without a name, or with a wrong one, 400 in the real server's words.
    expect(await core.readNamespacedPodLog({ namespace, name, container: 'server' })).toBe(`server up ${server.pid}\n`);
    expect(await core.readNamespacedPodLog({ namespace, name, container: 'client' })).toBe(`client up ${seen.pid}\n`);
    const unnamed = await refusal(core.readNamespacedPodLog({ namespace, name }));
    expect(unnamed).toEqual({
      code: 400,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `a container name must be specified for pod ${name}, choose one of: [server client]`,
        reason: 'BadRequest',
        code: 400,
      },
    });
    const wrong = await refusal(core.readNamespacedPodLog({ namespace, name, container: 'nope' }));
    expect(wrong.body).toMatchObject({ code: 400, reason: 'BadRequest', message: `container nope is not valid for pod ${name}` });
    const noPrevious = await refusal(core.readNamespacedPodLog({ namespace, name, container: 'server', previous: true }));
    expect(noPrevious.body).toMatchObject({ code: 400, message: `previous terminated container "server" in pod "${name}" not found` });

    // killContainer: only the server restarts; the client keeps its process and its count.
    fake.killContainer(namespace, name, 'server');
    const restarted = await eventually(
      () => core.readNamespacedPod({ namespace, name }),
      (p) => statuses(p)[0]?.restartCount === 1 && condition(p, 'Ready')?.status === 'True',
    );
    expect(statuses(restarted).map((s) => [s.name, s.restartCount])).toEqual([
      ['server', 1],
      ['client', 0],
    ]);
    expect(statuses(restarted)[0]?.lastState?.terminated).toMatchObject({ exitCode: 137, signal: 9 });
    expect(statuses(restarted)[1]?.lastState).toEqual({});
    const after = await eventually(
      () => call(pod, 8082, 'state'),
      (state) => state.server.pid !== undefined && state.server.pid !== server.pid,
    );
    expect(after.pid).toBe(seen.pid);
    expect(after.shared).toBe(`written by server ${after.server.pid}`);
    expect(await core.readNamespacedPodLog({ namespace, name, container: 'server', previous: true })).toBe(`server up ${server.pid}\n`);
    expect(await core.readNamespacedPodLog({ namespace, name, container: 'server' })).toBe(`server up ${after.server.pid}\n`);
    const clientPrevious = await refusal(core.readNamespacedPodLog({ namespace, name, container: 'client', previous: true }));
    expect(clientPrevious.body.message).toBe(`previous terminated container "client" in pod "${name}" not found`);

    // killPod: every container restarts.
    fake.killPod(namespace, name);
    const allRestarted = await eventually(
      () => core.readNamespacedPod({ namespace, name }),
      (p) =>
        statuses(p)
          .map((s) => s.restartCount)
          .join() === '2,1',
    );
    expect(allRestarted.metadata?.name).toBe(name);

    await apps.deleteNamespacedDeployment({ namespace, name: 'pair' });
    await eventually(
      () => podsOf('pair'),
      (pods) => pods.length === 0,
    );
  });
});
