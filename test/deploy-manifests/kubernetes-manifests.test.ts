import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '@occ/contracts';
import {
  DEPLOY_ROOT,
  kustomizationDirs,
  readYamlDocuments,
  relativeToDeploy,
  renderKustomization,
  splitImage,
  yamlFiles,
  type KubeObject,
  type RenderedObject,
} from './kustomize-render.ts';

// OCC's own Kubernetes manifests (deploy/kubernetes, docs/kubernetes.md): every object of every
// kustomization is validated against the Kubernetes OpenAPI schema of its kind, then the
// properties operators rely on are asserted on the example overlay, i.e. on what
// `kubectl apply -k deploy/kubernetes/overlays/example` sends. Nothing is applied to a cluster.

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Namespace,
  ServiceAccount,
  ConfigMap,
  Service,
  Deployment,
  PodDisruptionBudget,
  NetworkPolicy,
  Role,
  RoleBinding,
} as never;

const BASE = join(DEPLOY_ROOT, 'base');
const EXAMPLE = join(DEPLOY_ROOT, 'overlays/example');
const example = renderKustomization(EXAMPLE).map(({ object }) => object);

const all = (kind: string, objects = example) => objects.filter((o) => o.kind === kind);
const named = (kind: string, name: string, objects = example) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0]!;
};

interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: unknown; fieldRef?: unknown } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, any>;
  livenessProbe?: any;
  readinessProbe?: any;
  startupProbe?: any;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
const podSpec = (deployment: KubeObject) =>
  (deployment.spec as any).template.spec as { containers: Container[]; securityContext: Record<string, any>; volumes?: any[]; [key: string]: any };
const podLabels = (deployment: KubeObject) => (deployment.spec as any).template.metadata.labels as Record<string, string>;
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

const controller = named('Deployment', 'occ-controller');
const worker = named('Deployment', 'occ-worker');
const settings = named('ConfigMap', 'occ-settings').data as Record<string, string>;

describe('deploy/kubernetes: files and schemas', () => {
  it('every YAML file parses', () => {
    const files = yamlFiles();
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) expect(() => readYamlDocuments(file), relativeToDeploy(file)).not.toThrow();
  });

  it('every kustomization renders, and every object it renders validates against the OpenAPI schema of its kind', () => {
    const dirs = kustomizationDirs().map(relativeToDeploy);
    expect(dirs).toEqual(expect.arrayContaining(['base', 'agents-access', 'overlays/example']));
    for (const dir of kustomizationDirs()) {
      const rendered: RenderedObject[] = renderKustomization(dir);
      expect(rendered.length, relativeToDeploy(dir)).toBeGreaterThan(0);
      for (const { object, file } of rendered) {
        const Model = MODELS[object.kind];
        expect(Model, `${file}: no schema registered for ${object.kind}`).toBeDefined();
        expect(() => new Model!(structuredClone(object) as never).validate(), `${file}: ${object.kind} ${object.metadata.name}`).not.toThrow();
      }
    }
  });

  it('the schema check is not vacuous: a broken Deployment and a broken Role fail it', () => {
    const broken = structuredClone(controller);
    (broken.spec as any).replicas = 'two';
    expect(() => new Deployment(broken as never).validate()).toThrow();
    const role = structuredClone(named('Role', 'occ-compute'));
    (role as any).rules[0].verbs = 'get';
    expect(() => new Role(role as never).validate()).toThrow();
  });

  it('the base and agents-access are namespace-agnostic; the overlay puts OCC and the Agents in their namespaces', () => {
    for (const dir of ['base', 'agents-access']) {
      for (const { object, file } of renderKustomization(join(DEPLOY_ROOT, dir))) expect(object.metadata.namespace, file).toBeUndefined();
    }
    const occNamespace = controller.metadata.namespace!;
    const role = named('Role', 'occ-compute');
    expect(occNamespace).toBe('occ');
    expect(role.metadata.namespace).toBe(settings.OCC_KUBERNETES_NAMESPACE);
    expect(role.metadata.namespace).not.toBe(occNamespace);
    expect(
      all('Namespace')
        .map((n) => n.metadata.name)
        .sort(),
    ).toEqual([occNamespace, settings.OCC_KUBERNETES_NAMESPACE].sort());
    for (const object of example)
      if (object.kind !== 'Namespace' && object.metadata.namespace !== role.metadata.namespace)
        expect(object.metadata.namespace, `${object.kind} ${object.metadata.name}`).toBe(occNamespace);
  });
});

describe('deploy/kubernetes: the controller and the workers', () => {
  it('the controller runs `occ up` on all interfaces with at least two replicas, a disruption budget and a Service', () => {
    expect((controller.spec as any).replicas).toBeGreaterThanOrEqual(2);
    const [container] = podSpec(controller).containers;
    expect(container!.args?.slice(0, 1)).toEqual(['up']);
    expect(container!.args).toEqual(expect.arrayContaining(['--host', '0.0.0.0', '--no-context']));
    const port = Number(container!.args![container!.args!.indexOf('--port') + 1]);
    expect(container!.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
    const service = named('Service', 'occ-controller');
    expect((service.spec as any).ports.map((p: any) => p.targetPort)).toEqual(['http']);
    expect(selects((service.spec as any).selector, podLabels(controller))).toBe(true);
    expect(selects((service.spec as any).selector, podLabels(worker))).toBe(false);
    const budget = named('PodDisruptionBudget', 'occ-controller');
    expect((budget.spec as any).minAvailable).toBeGreaterThanOrEqual(1);
    expect((budget.spec as any).minAvailable).toBeLessThan((controller.spec as any).replicas);
    expect(selects((budget.spec as any).selector.matchLabels, podLabels(controller))).toBe(true);
  });

  it('the workers are a separate Deployment running `occ worker` under their own ServiceAccount and pod labels', () => {
    const [container] = podSpec(worker).containers;
    expect(container!.args).toEqual(['worker']);
    expect((worker.spec as any).replicas).toBeGreaterThanOrEqual(1);
    expect(podSpec(worker).serviceAccountName).toBe('occ-worker');
    expect(podSpec(controller).serviceAccountName).toBe('occ-controller');
    expect(selects((controller.spec as any).selector.matchLabels, podLabels(worker))).toBe(false);
    expect(selects((worker.spec as any).selector.matchLabels, podLabels(controller))).toBe(false);
    expect(container!.ports ?? []).toEqual([]);
  });

  it('the controller is probed on /healthz (liveness, start-up) and /readyz (readiness), both routes of the public API', () => {
    const [container] = podSpec(controller).containers;
    expect(container!.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container!.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container!.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    const publicGets = apiRoutes.filter((r) => r.method === 'GET' && r.auth === 'public').map((r) => r.path);
    expect(publicGets).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
  });

  it('both run the kubernetes ComputeDriver from one settings ConfigMap, and its controller labels select both kinds of pod', () => {
    expect(settings.OCC_COMPUTE_DRIVER).toBe('kubernetes');
    expect(settings.OCC_KUBERNETES_NAMESPACE).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    const labels = Object.fromEntries(settings.OCC_KUBERNETES_CONTROLLER_LABELS!.split(',').map((pair) => pair.split('=') as [string, string]));
    for (const deployment of [controller, worker]) {
      const [container] = podSpec(deployment).containers;
      expect(container!.envFrom).toEqual([{ configMapRef: { name: 'occ-settings' } }]);
      expect(container!.env!.find((e) => e.name === 'OCC_KUBERNETES_CONTROLLER_NAMESPACE')?.valueFrom?.fieldRef).toEqual({ fieldPath: 'metadata.namespace' });
      expect(selects(labels, podLabels(deployment))).toBe(true);
      expect(podSpec(deployment).automountServiceAccountToken).toBe(true);
    }
  });

  it('images: the base names its image without a tag; the overlay sets the controller image and the runtime image', () => {
    for (const { object } of renderKustomization(BASE).filter(({ object }) => object.kind === 'Deployment')) {
      expect(podSpec(object).containers.map((c) => c.image)).toEqual(['occ-controller']);
    }
    for (const deployment of [controller, worker]) {
      const image = splitImage(podSpec(deployment).containers[0]!.image);
      expect(image.name).not.toBe('occ-controller');
      expect(image.tag ?? image.digest).toBeTruthy();
    }
    expect(settings.OCC_RUNTIME_IMAGE).not.toMatch(/set-by-overlay/);
    expect(splitImage(settings.OCC_RUNTIME_IMAGE!).tag ?? splitImage(settings.OCC_RUNTIME_IMAGE!).digest).toBeTruthy();
  });
});

describe('deploy/kubernetes: hardening', () => {
  it('no pod runs privileged, as root, with a writable root filesystem, with capabilities or with host access', () => {
    for (const deployment of all('Deployment')) {
      const spec = podSpec(deployment);
      const where = deployment.metadata.name;
      expect(spec.securityContext.runAsNonRoot, where).toBe(true);
      expect(spec.securityContext.runAsUser, where).toBeGreaterThan(0);
      expect(spec.securityContext.runAsGroup, where).toBeGreaterThan(0);
      expect(spec.securityContext.seccompProfile, where).toEqual({ type: 'RuntimeDefault' });
      for (const hostAccess of ['hostNetwork', 'hostPID', 'hostIPC']) expect(spec[hostAccess], `${where} ${hostAccess}`).toBeFalsy();
      for (const volume of spec.volumes ?? []) expect(Object.keys(volume).sort(), `${where} volume ${volume.name}`).toEqual(['emptyDir', 'name']);
      expect(spec.initContainers ?? []).toEqual([]);
      for (const container of spec.containers) {
        const context = container.securityContext!;
        expect(context.privileged, where).toBe(false);
        expect(context.allowPrivilegeEscalation, where).toBe(false);
        expect(context.readOnlyRootFilesystem, where).toBe(true);
        expect(context.runAsUser ?? spec.securityContext.runAsUser, where).toBeGreaterThan(0);
        expect(context.capabilities, where).toEqual({ drop: ['ALL'] });
      }
    }
  });

  it('every container requests CPU and memory and has a memory limit', () => {
    for (const deployment of all('Deployment')) {
      for (const container of podSpec(deployment).containers) {
        expect(Object.keys(container.resources?.requests ?? {}).sort(), deployment.metadata.name).toEqual(['cpu', 'memory']);
        expect(container.resources?.limits?.memory, deployment.metadata.name).toBeTruthy();
      }
    }
  });

  it("DATABASE_URL, OCC_SECRET_KEY (and the controller's discovery cursor key) come only from the Secret `occ`; no manifest carries a Secret or those values", () => {
    for (const deployment of all('Deployment')) {
      for (const container of podSpec(deployment).containers) {
        for (const name of ['DATABASE_URL', 'OCC_SECRET_KEY']) {
          const entries = container.env!.filter((e) => e.name === name);
          expect(entries, `${deployment.metadata.name} ${name}`).toHaveLength(1);
          expect(entries[0]!.value).toBeUndefined();
          expect(Object.keys(entries[0]!.valueFrom!)).toEqual(['secretKeyRef']);
          expect(entries[0]!.valueFrom!.secretKeyRef!.name).toBe('occ');
        }
        // envFrom may only bring the settings ConfigMap, which holds neither.
        for (const source of container.envFrom ?? []) expect(Object.keys(source)).toEqual(['configMapRef']);
      }
    }
    // Discovery cursors are signed: replicas behind one Service must share the key.
    const cursorKey = podSpec(controller).containers[0]!.env!.find((e) => e.name === 'OCC_DISCOVERY_CURSOR_KEY');
    expect(cursorKey?.valueFrom).toEqual({ secretKeyRef: { name: 'occ', key: 'discovery-cursor-key' } });
    for (const map of all('ConfigMap'))
      for (const key of ['DATABASE_URL', 'OCC_SECRET_KEY', 'OCC_DISCOVERY_CURSOR_KEY']) expect(Object.keys((map.data as object) ?? {})).not.toContain(key);
    expect(all('Secret')).toEqual([]);
    const text = yamlFiles()
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    expect(text).not.toMatch(/postgres(ql)?:\/\//);
  });
});

describe('deploy/kubernetes: RBAC and NetworkPolicies', () => {
  const EXPECTED_RULES = [
    { apiGroups: [''], resources: ['serviceaccounts', 'configmaps', 'secrets', 'services'], verbs: ['get', 'list', 'create', 'patch', 'update', 'delete'] },
    { apiGroups: [''], resources: ['serviceaccounts/finalizers'], verbs: ['update'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'create', 'patch', 'update', 'delete'] },
    { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['get', 'list', 'create', 'patch', 'update', 'delete'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['pods/proxy', 'pods/log'], verbs: ['get'] },
  ];

  it("one namespaced Role in the Agents' namespace holds exactly the driver's rules, with no wildcard and nothing cluster-wide", () => {
    expect(all('ClusterRole')).toEqual([]);
    expect(all('ClusterRoleBinding')).toEqual([]);
    const roles = all('Role');
    expect(roles.map((r) => r.metadata.name)).toEqual(['occ-compute']);
    expect((roles[0] as any).rules).toEqual(EXPECTED_RULES);
    expect(JSON.stringify((roles[0] as any).rules)).not.toContain('*');
    expect(roles[0]!.metadata.namespace).toBe(settings.OCC_KUBERNETES_NAMESPACE);
  });

  it("the Role is bound, in the Agents' namespace, to the worker and controller ServiceAccounts of OCC's namespace and to nothing else", () => {
    const bindings = all('RoleBinding');
    expect(bindings).toHaveLength(1);
    const binding = bindings[0] as any;
    expect(binding.metadata.namespace).toBe(settings.OCC_KUBERNETES_NAMESPACE);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'occ-compute' });
    const occNamespace = controller.metadata.namespace;
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'occ-worker', namespace: occNamespace },
      { kind: 'ServiceAccount', name: 'occ-controller', namespace: occNamespace },
    ]);
    for (const account of all('ServiceAccount')) {
      expect(account.metadata.namespace).toBe(occNamespace);
      expect((account as any).automountServiceAccountToken).toBe(false);
    }
  });

  it("a default-deny policy selects every OCC pod; ingress is allowed only to the controller's port; egress only to DNS, PostgreSQL and HTTPS", () => {
    const policies = all('NetworkPolicy') as any[];
    const deny = policies.find((p) => p.metadata.name === 'occ-default-deny');
    expect(deny.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(deny.spec.ingress ?? []).toEqual([]);
    expect(deny.spec.egress ?? []).toEqual([]);
    for (const deployment of [controller, worker]) expect(selects(deny.spec.podSelector.matchLabels, podLabels(deployment))).toBe(true);

    const ingress = policies.filter((p) => (p.spec.ingress ?? []).length > 0);
    expect(ingress.map((p) => p.metadata.name)).toEqual(['occ-controller-ingress']);
    const controllerPort = podSpec(controller).containers[0]!.ports![0]!.containerPort;
    expect(ingress[0].spec.ingress.flatMap((rule: any) => rule.ports)).toEqual([{ protocol: 'TCP', port: controllerPort }]);
    expect(selects(ingress[0].spec.podSelector.matchLabels, podLabels(controller))).toBe(true);
    expect(selects(ingress[0].spec.podSelector.matchLabels, podLabels(worker))).toBe(false);

    const egressPorts = policies
      .flatMap((p) => p.spec.egress ?? [])
      .flatMap((rule: any) => rule.ports)
      .map((p: any) => `${p.protocol}/${p.port}`);
    expect(egressPorts.sort()).toEqual(['TCP/443', 'TCP/53', 'TCP/5432', 'TCP/6443', 'UDP/53'].sort());
    for (const policy of policies) expect(policy.metadata.namespace).toBe(controller.metadata.namespace);
  });
});

// The renderer above implements only what these manifests use; where kubectl is installed its
// Kustomize must produce the same objects (CI machines need not have it: then this is skipped).
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
describe.skipIf(!kubectl)('deploy/kubernetes: agreement with kubectl kustomize', () => {
  it('kubectl kustomize renders the same objects as the test renderer, for every kustomization', () => {
    const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    for (const dir of kustomizationDirs()) {
      const run = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const theirs = parseAllDocuments(run.stdout)
        .map((doc) => doc.toJS() as KubeObject)
        .sort((a, b) => key(a).localeCompare(key(b)));
      const ours = renderKustomization(dir)
        .map(({ object }) => object)
        .sort((a, b) => key(a).localeCompare(key(b)));
      expect(ours, relativeToDeploy(dir)).toEqual(theirs);
    }
  });
});
