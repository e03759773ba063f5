import { randomUUID } from 'node:crypto';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { describe, expect, it } from 'vitest';
import { CODEX_PAT_ENVIRONMENT, type RuntimeManifest } from '@occ/contracts';
import {
  agentObjectNames,
  dnsLabel,
  KubernetesRenderError,
  LABEL_AGENT_ID,
  parseCidr,
  LABEL_REVISION_ID,
  MAX_CONFIGMAP_BYTES,
  POD_PATHS,
  renderAgentWorkload,
  renderGatewayDeployment,
  renderManifestConfigMap,
  renderNetworkPolicies,
  renderService,
  revisionObjectNames,
  type AgentIdentity,
  type AgentWorkloadInput,
  type KubernetesObject,
  type OwnerObject,
} from '../../src/drivers/compute/kubernetes/render/index.ts';

// Pure rendering of one Agent's Kubernetes objects (no API server): every object is validated
// against the Kubernetes OpenAPI schemas (`kubernetes-models`), then its behaviour is asserted.
// Nothing here is applied to a cluster, so no test claims an ordering or runtime requirement id.

const agent = (): AgentIdentity => ({ kubernetesNamespace: 'occ-agents', namespaceId: `ns_${randomUUID()}`, agentId: `agt_${randomUUID()}` });

function manifestFor(who: AgentIdentity, overrides: Partial<RuntimeManifest> = {}): RuntimeManifest {
  return {
    manifestVersion: 1,
    namespaceId: who.namespaceId,
    agentId: who.agentId,
    revisionId: `rev_${randomUUID()}`,
    revision: 3,
    harness: 'openclaw',
    harnessAuth: null,
    plugins: { driverId: 'openclaw-curated', selections: {}, approvers: null },
    configuration: { id: `cfg_${randomUUID()}`, generation: 1, values: { agents: { defaults: { model: 'x/y' } } } },
    secretEnvironment: ['ANTHROPIC_API_KEY'],
    ...overrides,
  };
}

const CANARY = 'canary-k8s-9d41e7';
const owner: OwnerObject = { apiVersion: 'v1', kind: 'ServiceAccount', name: 'occ-owner', uid: randomUUID() };

function input(who = agent(), manifest = manifestFor(who)): AgentWorkloadInput {
  return {
    agent: who,
    manifest,
    environment: {
      OCC_RUNTIME_STATUS_TOKEN: `${CANARY}-status-token`,
      OCC_RUNTIME_GATEWAY_TOKEN: `${CANARY}-gateway-token`,
      OCC_RUNTIME_TRANSPORT_SECRET: `${CANARY}-transport-secret-0123456789abcdef`,
      ANTHROPIC_API_KEY: `${CANARY}-anthropic`,
      HTTPS_PROXY: `http://user:${CANARY}@proxy.internal:3128`,
    },
    gateway: {
      image: 'registry.example/occ/runtime@sha256:' + 'a'.repeat(64),
      statusPort: 8790,
      resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { cpu: '2', memory: '2Gi', 'ephemeral-storage': '4Gi' } },
    },
    network: { controller: { kubernetesNamespace: 'occ-system', podLabels: { 'app.kubernetes.io/name': 'occ', 'app.kubernetes.io/component': 'controller' } } },
    owner,
  };
}

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  ServiceAccount,
  ConfigMap,
  Secret,
  Service,
  Deployment,
  NetworkPolicy,
} as never;

/** Validates one object against its kind's OpenAPI schema; throws the validator's error. */
function validate(object: KubernetesObject): void {
  const Model = MODELS[object.kind];
  if (!Model) throw new Error(`No schema for ${object.kind}`);
  new Model(structuredClone(object) as never).validate();
}

const byKind = (objects: KubernetesObject[], kind: string) => objects.filter((o) => o.kind === kind);
const one = (objects: KubernetesObject[], kind: string) => {
  const found = byKind(objects, kind);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const rendered = (i = input()) => renderAgentWorkload(i).map((o) => o.object);
const podSpec = (deployment: KubernetesObject) => (deployment.spec as any).template.spec;

describe('Kubernetes rendering: schema validation', () => {
  it('every rendered object (OpenClaw and Codex revisions) validates against the Kubernetes OpenAPI schema of its kind', () => {
    const openclaw = rendered();
    const codexAgent = agent();
    const codex = rendered({
      ...input(codexAgent, manifestFor(codexAgent, { harness: 'codex', harnessAuth: { method: 'codex_pat', environment: CODEX_PAT_ENVIRONMENT }, secretEnvironment: [] })),
      environment: { OCC_RUNTIME_STATUS_TOKEN: 't'.repeat(32), OCC_RUNTIME_GATEWAY_TOKEN: 'g'.repeat(32), [CODEX_PAT_ENVIRONMENT]: CANARY },
    });
    const withCidrs = renderNetworkPolicies(
      codexAgent,
      { statusPort: 8790, controller: { kubernetesNamespace: 'occ', podLabels: { app: 'occ' } }, apiServerCidrs: ['10.0.0.0/24', 'fd00::/64'] },
      owner,
    );
    const all = [...openclaw, ...codex, ...withCidrs];
    expect(all.map((o) => o.kind).sort()).toEqual(
      [
        ...Array(2).fill(['ConfigMap', 'Deployment', 'NetworkPolicy', 'NetworkPolicy', 'NetworkPolicy', 'Secret', 'Service', 'ServiceAccount']).flat(),
        'NetworkPolicy',
        'NetworkPolicy',
        'NetworkPolicy',
      ].sort(),
    );
    for (const object of all) expect(() => validate(object), `${object.kind} ${object.metadata.name}`).not.toThrow();
  });

  it('the schema validation rejects what the API server would (so passing it means something)', () => {
    const objects = rendered();
    const deployment = structuredClone(one(objects, 'Deployment'));
    (deployment.spec as { replicas: unknown }).replicas = 'one';
    expect(() => validate(deployment)).toThrow();
    const policy = structuredClone(byKind(objects, 'NetworkPolicy')[1]!);
    (policy.spec as { egress: { ports: { protocol: unknown }[] }[] }).egress[0]!.ports[0]!.protocol = 6;
    expect(() => validate(policy)).toThrow();
    const configMap = structuredClone(one(objects, 'ConfigMap'));
    configMap.data = { 'manifest.json': { nested: true } };
    expect(() => validate(configMap)).toThrow();
    const noContainerName = structuredClone(one(objects, 'Deployment'));
    delete podSpec(noContainerName).containers[0].name;
    expect(() => validate(noContainerName)).toThrow();
  });
});

describe('Kubernetes rendering: the gateway Deployment', () => {
  it('one replica, strategy Recreate, selector without the revision and matching the pod template', () => {
    const deployment = one(rendered(), 'Deployment');
    const spec = deployment.spec as {
      replicas: number;
      strategy: unknown;
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> } };
    };
    expect(spec.replicas).toBe(1);
    expect(spec.strategy).toEqual({ type: 'Recreate' });
    expect(Object.keys(spec.selector.matchLabels).sort()).toEqual([LABEL_AGENT_ID, 'app.kubernetes.io/component'].sort());
    expect(spec.template.metadata.labels).toMatchObject(spec.selector.matchLabels);
    expect(spec.template.metadata.labels[LABEL_REVISION_ID]).toMatch(/^rev_/);
  });

  it('hardened pod spec: non-root, read-only root filesystem, all capabilities dropped, no privilege escalation, seccomp RuntimeDefault, no API token', () => {
    const i = input();
    const objects = rendered(i);
    const pod = podSpec(one(objects, 'Deployment'));
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.enableServiceLinks).toBe(false);
    expect(pod.serviceAccountName).toBe(agentObjectNames(i.agent.agentId).serviceAccount);
    expect(one(objects, 'ServiceAccount').automountServiceAccountToken).toBe(false);
    expect(pod.hostNetwork ?? false).toBe(false);
    expect(pod.hostPID ?? false).toBe(false);
    expect(pod.containers).toHaveLength(1);
    expect(pod.initContainers).toBeUndefined();
    const container = pod.containers[0];
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.resources).toEqual({ requests: { cpu: '250m', memory: '512Mi' }, limits: { cpu: '2', memory: '2Gi', 'ephemeral-storage': '4Gi' } });
  });

  it('an emptyDir is the private temporary home (HOME, TMPDIR, /tmp, revision and state directories); the manifest is projected read-only', () => {
    const i = input();
    const pod = podSpec(one(rendered(i), 'Deployment'));
    const container = pod.containers[0];
    expect(pod.volumes).toEqual([
      {
        name: 'manifest',
        projected: {
          defaultMode: 0o440,
          sources: [{ configMap: { name: revisionObjectNames(i.agent.agentId, 3).manifest, optional: false, items: [{ key: 'manifest.json', path: 'manifest.json' }] } }],
        },
      },
      { name: 'home', emptyDir: { sizeLimit: '2Gi' } },
    ]);
    // Every writable path is a subdirectory of the emptyDir; the only other mount is the read-only manifest.
    for (const mount of container.volumeMounts) {
      if (mount.name === 'manifest') expect(mount).toEqual({ name: 'manifest', mountPath: POD_PATHS.manifestDir, readOnly: true });
      else expect(mount.name).toBe('home');
    }
    const mounted = Object.fromEntries(
      container.volumeMounts.filter((m: { name: string }) => m.name === 'home').map((m: { mountPath: string; subPath: string }) => [m.mountPath, m.subPath]),
    );
    expect(mounted).toEqual({ [POD_PATHS.home]: 'home', [POD_PATHS.tmp]: 'tmp', '/tmp': 'tmp', [POD_PATHS.revisionDir]: 'revision', [POD_PATHS.stateDir]: 'state' });
    const plain = Object.fromEntries(container.env.filter((e: { value?: string }) => e.value !== undefined).map((e: { name: string; value: string }) => [e.name, e.value]));
    expect(plain).toEqual({
      HOME: POD_PATHS.home,
      TMPDIR: POD_PATHS.tmp,
      OCC_RUNTIME_MANIFEST: '/etc/occ/manifest/manifest.json',
      OCC_RUNTIME_REVISION_DIR: POD_PATHS.revisionDir,
      OCC_RUNTIME_STATE_DIR: POD_PATHS.stateDir,
      OCC_RUNTIME_STATUS_PORT: '8790',
      OCC_RUNTIME_GATEWAY_PORT: '18789',
    });
    // Both servers bind the pod's own IP (the downward API), never every interface.
    const fromPod = container.env.filter((e: { valueFrom?: { fieldRef?: unknown } }) => e.valueFrom?.fieldRef !== undefined);
    expect(fromPod).toEqual(['OCC_RUNTIME_STATUS_ADDRESS', 'OCC_RUNTIME_GATEWAY_ADDRESS'].map((name) => ({ name, valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } })));
  });

  it('no delivered value is in the Deployment: every delivered variable comes from the Secret by key, and the Secret holds the values', () => {
    const i = input();
    const objects = rendered(i);
    const deployment = one(objects, 'Deployment');
    const secret = one(objects, 'Secret');
    for (const object of objects.filter((o) => o.kind !== 'Secret')) expect(JSON.stringify(object)).not.toContain(CANARY);
    const fromSecret = podSpec(deployment).containers[0].env.filter((e: { valueFrom?: { secretKeyRef?: unknown } }) => e.valueFrom?.secretKeyRef !== undefined);
    expect(fromSecret).toEqual(Object.keys(i.environment).map((name) => ({ name, valueFrom: { secretKeyRef: { name: secret.metadata.name, key: name, optional: false } } })));
    expect(secret.type).toBe('Opaque');
    expect(secret.stringData).toEqual(i.environment);
    expect(secret.data).toBeUndefined();
    // The Deployment renderer is never given a value at all.
    const fromNames = renderGatewayDeployment({ agent: i.agent, manifest: i.manifest, environmentNames: Object.keys(i.environment), settings: i.gateway, owner });
    expect(fromNames).toEqual(deployment);
  });

  it('readiness is a TCP check of the status port (an HTTP check would put the status token in the pod spec)', () => {
    const container = podSpec(one(rendered(), 'Deployment')).containers[0];
    expect(container.ports).toEqual([
      { name: 'status', containerPort: 8790, protocol: 'TCP' },
      { name: 'gateway', containerPort: 18789, protocol: 'TCP' },
    ]);
    expect(container.readinessProbe).toEqual({ tcpSocket: { port: 'status' }, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 3 });
  });

  it('the delivered environment must hold the runtime tokens and what the manifest promises, and may not replace what the Deployment sets', () => {
    const i = input();
    const names = Object.keys(i.environment);
    const render =
      (environmentNames: string[], manifest = i.manifest) =>
      () =>
        renderGatewayDeployment({ agent: i.agent, manifest, environmentNames, settings: i.gateway, owner });
    const refused = (fn: () => unknown, text: string) => {
      expect(fn).toThrow(KubernetesRenderError);
      expect(fn).toThrow(text);
    };
    refused(render(names.filter((n) => n !== 'OCC_RUNTIME_STATUS_TOKEN')), 'lacks OCC_RUNTIME_STATUS_TOKEN');
    refused(render(names.filter((n) => n !== 'ANTHROPIC_API_KEY')), 'lacks ANTHROPIC_API_KEY');
    refused(render([...names, 'HOME']), 'HOME is set by the Deployment itself');
    refused(render([...names, 'OCC_RUNTIME_MANIFEST']), 'OCC_RUNTIME_MANIFEST is set by the Deployment itself');
    refused(render([...names, 'BAD-NAME']), 'is not an environment variable name');
    refused(render([...names, 'ANTHROPIC_API_KEY']), 'delivered twice');
    const codex: RuntimeManifest = { ...i.manifest, harness: 'codex', harnessAuth: { method: 'codex_pat', environment: CODEX_PAT_ENVIRONMENT } };
    refused(render(names, codex), `lacks ${CODEX_PAT_ENVIRONMENT}`);
    expect(render([...names, CODEX_PAT_ENVIRONMENT], codex)).not.toThrow();
  });

  it("a Codex Agent's private home may grow to 4Gi (its harness plugin and OpenClaw's copies of it), another Agent's to 2Gi; a setting overrides both", () => {
    const i = input();
    const names = [...Object.keys(i.environment), CODEX_PAT_ENVIRONMENT];
    const homeOf = (manifest: RuntimeManifest, settings = i.gateway) =>
      podSpec(renderGatewayDeployment({ agent: i.agent, manifest, environmentNames: manifest.harnessAuth ? names : names.slice(0, -1), settings, owner })).volumes.find(
        (v: { name: string }) => v.name === 'home',
      );
    const codex: RuntimeManifest = { ...i.manifest, harness: 'codex', harnessAuth: { method: 'codex_pat', environment: CODEX_PAT_ENVIRONMENT } };
    expect(homeOf(i.manifest)).toEqual({ name: 'home', emptyDir: { sizeLimit: '2Gi' } });
    expect(homeOf(codex)).toEqual({ name: 'home', emptyDir: { sizeLimit: '4Gi' } });
    expect(homeOf(codex, { ...i.gateway, homeSizeLimit: '8Gi' })).toEqual({ name: 'home', emptyDir: { sizeLimit: '8Gi' } });
  });

  it("[G-6] a Codex Agent's pod runs the app-server as a second container: the codex_pat and the Codex settings reach it only, the Secret bindings and the gateway token the runtime container only", () => {
    const i = input();
    const names = [...Object.keys(i.environment), CODEX_PAT_ENVIRONMENT, 'OCC_RUNTIME_CODEX_CHATGPT_BASE_URL'];
    const codex: RuntimeManifest = { ...i.manifest, harness: 'codex', harnessAuth: { method: 'codex_pat', environment: CODEX_PAT_ENVIRONMENT } };
    const spec = podSpec(renderGatewayDeployment({ agent: i.agent, manifest: codex, environmentNames: names, settings: i.gateway, owner }));
    expect(spec.containers.map((c: { name: string }) => c.name)).toEqual(['runtime', 'codex-app-server']);
    expect(spec.shareProcessNamespace).toBeUndefined();
    const [runtime, appServer] = spec.containers as Array<{
      env: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { key: string } } }>;
      ports: unknown[];
      volumeMounts: Array<{ name: string }>;
      securityContext: unknown;
    }>;
    const fromSecret = (c: NonNullable<typeof runtime>) =>
      c.env
        .filter((e) => e.valueFrom?.secretKeyRef)
        .map((e) => e.name)
        .sort();
    expect(fromSecret(runtime!)).toEqual(['ANTHROPIC_API_KEY', 'HTTPS_PROXY', 'OCC_RUNTIME_GATEWAY_TOKEN', 'OCC_RUNTIME_STATUS_TOKEN', 'OCC_RUNTIME_TRANSPORT_SECRET']);
    expect(fromSecret(appServer!)).toEqual(
      ['HTTPS_PROXY', CODEX_PAT_ENVIRONMENT, 'OCC_RUNTIME_CODEX_CHATGPT_BASE_URL', 'OCC_RUNTIME_STATUS_TOKEN', 'OCC_RUNTIME_TRANSPORT_SECRET'].sort(),
    );
    const plain = (c: NonNullable<typeof runtime>) =>
      Object.fromEntries(c.env.filter((e) => !e.valueFrom?.secretKeyRef).map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));
    expect(plain(runtime!)).toMatchObject({ OCC_RUNTIME_CODEX_ROLE: 'gateway', OCC_RUNTIME_CODEX_PEER_ADDRESS: 'status.podIP', OCC_RUNTIME_CODEX_PEER_STATUS_PORT: '8182' });
    expect(plain(appServer!)).toMatchObject({
      OCC_RUNTIME_CODEX_ROLE: 'app-server',
      OCC_RUNTIME_STATUS_ADDRESS: 'status.podIP',
      OCC_RUNTIME_STATUS_PORT: '8182',
      OCC_RUNTIME_CODEX_APP_SERVER_PORT: '8183',
      HOME: POD_PATHS.home,
    });
    // Separate file systems: each its own emptyDir; only the manifest is shared (read-only). No port of the app-server is declared.
    expect(new Set(runtime!.volumeMounts.map((m) => m.name))).toEqual(new Set(['manifest', 'home']));
    expect(new Set(appServer!.volumeMounts.map((m) => m.name))).toEqual(new Set(['manifest', 'codex']));
    expect(appServer!.ports).toEqual([]);
    expect(appServer!.securityContext).toEqual(runtime!.securityContext);
    const openclaw = podSpec(renderGatewayDeployment({ agent: i.agent, manifest: i.manifest, environmentNames: Object.keys(i.environment), settings: i.gateway, owner }));
    expect(openclaw.containers.map((c: { name: string }) => c.name)).toEqual(['runtime']);
  });

  it('a manifest of another Agent, or one that does not match the schema, is refused', () => {
    const i = input();
    const other = agent();
    expect(() => renderAgentWorkload({ ...i, manifest: manifestFor({ ...other, kubernetesNamespace: 'occ-agents' }) })).toThrow('belongs to another Agent');
    expect(() => renderAgentWorkload({ ...i, manifest: { ...i.manifest, extra: 1 } as RuntimeManifest })).toThrow('does not match RuntimeManifestSchema');
  });
});

describe('Kubernetes rendering: the manifest ConfigMap', () => {
  it('holds exactly the manifest as JSON, immutable, one per revision', () => {
    const i = input();
    const configMap = one(rendered(i), 'ConfigMap');
    expect(configMap.immutable).toBe(true);
    expect(Object.keys(configMap.data as object)).toEqual(['manifest.json']);
    expect(JSON.parse((configMap.data as Record<string, string>)['manifest.json']!)).toEqual(i.manifest);
    expect(configMap.metadata.name).toBe(revisionObjectNames(i.agent.agentId, 3).manifest);
    expect(configMap.metadata.labels[LABEL_REVISION_ID]).toBe(i.manifest.revisionId);
  });

  it('a manifest of exactly the ConfigMap limit renders; one byte more is refused with RUNTIME_MANIFEST_TOO_LARGE naming both sizes', () => {
    const who = agent();
    const sized = (padding: number) => manifestFor(who, { configuration: { id: `cfg_${randomUUID()}`, generation: 1, values: { pad: 'x'.repeat(padding) } } });
    const bytesOf = (m: RuntimeManifest) => Buffer.byteLength('manifest.json') + Buffer.byteLength(`${JSON.stringify(m)}\n`);
    const padding = MAX_CONFIGMAP_BYTES - bytesOf(sized(0));
    expect(bytesOf(sized(padding))).toBe(MAX_CONFIGMAP_BYTES);
    const atLimit = renderManifestConfigMap(who, sized(padding), owner);
    expect(() => validate(atLimit)).not.toThrow();
    let error: unknown;
    try {
      renderManifestConfigMap(who, sized(padding + 1), owner);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KubernetesRenderError);
    expect((error as KubernetesRenderError).code).toBe('RUNTIME_MANIFEST_TOO_LARGE');
    expect((error as Error).message).toBe(`The runtime manifest is ${MAX_CONFIGMAP_BYTES + 1} bytes; a Kubernetes ConfigMap holds at most ${MAX_CONFIGMAP_BYTES} bytes.`);
    expect(() => renderAgentWorkload({ ...input(who, sized(padding + 1)) })).toThrow(KubernetesRenderError);
  });
});

describe('Kubernetes rendering: NetworkPolicies', () => {
  const DNS_RULE = {
    to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
    ports: [
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
    ],
  };
  const PRIVATE_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'];
  const PRIVATE_V6 = ['fc00::/7', 'fe80::/10', '::1/128'];

  it('default deny (ingress and egress) for every pod of the Agent, then exactly HTTPS to the internet (not private, link-local or loopback ranges), DNS, and the status port from the controller', () => {
    const i = input();
    const [deny, egress, status] = byKind(rendered(i), 'NetworkPolicy');
    const podSelector = { matchLabels: { [LABEL_AGENT_ID]: i.agent.agentId } };
    expect(deny!.spec).toEqual({ podSelector, policyTypes: ['Ingress', 'Egress'] });
    expect(egress!.spec).toEqual({
      podSelector,
      policyTypes: ['Egress'],
      egress: [
        {
          to: [{ ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE_V4 } }, { ipBlock: { cidr: '::/0', except: PRIVATE_V6 } }],
          ports: [{ protocol: 'TCP', port: 443 }],
        },
        DNS_RULE,
      ],
    });
    expect(status!.spec).toEqual({
      podSelector,
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'occ-system' } },
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'occ', 'app.kubernetes.io/component': 'controller' } },
            },
          ],
          ports: [{ protocol: 'TCP', port: 8790 }],
        },
      ],
    });
  });

  it('API-server CIDRs, when configured, are the only other peers of the status port; an empty controller selector is refused', () => {
    const who = agent();
    const controller = { kubernetesNamespace: 'occ-system', podLabels: { app: 'occ' } };
    const [, , status] = renderNetworkPolicies(who, { statusPort: 9000, controller, apiServerCidrs: ['172.20.0.10/32'] }, owner);
    expect((status!.spec as { ingress: unknown }).ingress).toEqual([
      {
        from: [
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'occ-system' } }, podSelector: { matchLabels: { app: 'occ' } } },
          { ipBlock: { cidr: '172.20.0.10/32' } },
        ],
        ports: [{ protocol: 'TCP', port: 9000 }],
      },
    ]);
    expect(() => renderNetworkPolicies(who, { statusPort: 9000, controller: { ...controller, podLabels: {} } }, owner)).toThrow('empty selector');
    expect(() => renderNetworkPolicies(who, { statusPort: 9000, controller, apiServerCidrs: ['10.0.0.0'] }, owner)).toThrow('is not a CIDR');
    expect(() => renderNetworkPolicies(who, { statusPort: 0, controller }, owner)).toThrow('statusPort');
  });

  it("the operator's excepted CIDRs join the internet rule's exceptions by family; each allowed CIDR gets its own TCP 443 rule", () => {
    const i = input();
    const network = { ...i.network, egressExcept: ['203.0.113.0/24', '2001:db8::/32', '10.96.0.0/12'], egressAllow: ['10.96.40.7/32', 'fd00:10::/64'] };
    const [, egress] = byKind(rendered({ ...i, network }), 'NetworkPolicy');
    expect(() => validate(egress!)).not.toThrow();
    expect((egress!.spec as { egress: unknown }).egress).toEqual([
      {
        to: [
          { ipBlock: { cidr: '0.0.0.0/0', except: [...PRIVATE_V4, '203.0.113.0/24', '10.96.0.0/12'] } },
          { ipBlock: { cidr: '::/0', except: [...PRIVATE_V6, '2001:db8::/32'] } },
        ],
        ports: [{ protocol: 'TCP', port: 443 }],
      },
      { to: [{ ipBlock: { cidr: '10.96.40.7/32' } }], ports: [{ protocol: 'TCP', port: 443 }] },
      { to: [{ ipBlock: { cidr: 'fd00:10::/64' } }], ports: [{ protocol: 'TCP', port: 443 }] },
      DNS_RULE,
    ]);
    // Every exception is strictly inside its block's cidr, as the API server requires.
    for (const peer of (egress!.spec as { egress: { to: { ipBlock: { cidr: string; except?: string[] } }[] }[] }).egress[0]!.to) {
      const block = parseCidr(peer.ipBlock.cidr)!;
      for (const cidr of peer.ipBlock.except!) expect(parseCidr(cidr)).toMatchObject({ family: block.family, prefix: expect.any(Number) });
      for (const cidr of peer.ipBlock.except!) expect(parseCidr(cidr)!.prefix).toBeGreaterThan(block.prefix);
    }
  });

  it('egress CIDRs are refused unless strict CIDRs (and an exception narrower than /0), naming the field and item, never the value', () => {
    const who = agent();
    const base = { statusPort: 9000, controller: { kubernetesNamespace: 'occ-system', podLabels: { app: 'occ' } } };
    const refused = (extra: object) => () => renderNetworkPolicies(who, { ...base, ...extra }, owner);
    expect(refused({ egressExcept: ['203.0.113.0/24', '203.0.113.9/24'] })).toThrow('egressExcept: item 2 is not a CIDR');
    expect(refused({ egressAllow: ['10.0.0.0/33'] })).toThrow('egressAllow: item 1 is not a CIDR');
    expect(refused({ egressExcept: ['0.0.0.0/0'] })).toThrow('egressExcept: item 1 is a /0');
    expect(refused({ egressAllow: ['0.0.0.0/0'] })).not.toThrow();
    let error: unknown;
    try {
      refused({ egressAllow: ['secret-ish-value'] })();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KubernetesRenderError);
    expect((error as KubernetesRenderError).code).toBe('KUBERNETES_RENDER_INPUT_INVALID');
    expect((error as Error).message).not.toContain('secret-ish-value');
  });

  it('CIDR parsing is strict: family width, no host bits, no leading zeros, zones or dotted IPv6 tails', () => {
    const good = {
      '0.0.0.0/0': [4, 0],
      '10.0.0.0/8': [4, 8],
      '203.0.113.7/32': [4, 32],
      '::/0': [6, 0],
      '::1/128': [6, 128],
      'fc00::/7': [6, 7],
      'FD00:10::/64': [6, 64],
      '2001:db8:0:0:0:0:0:0/32': [6, 32],
    };
    for (const [text, [family, prefix]] of Object.entries(good)) expect(parseCidr(text), text).toEqual({ family, prefix });
    const bad = [
      '10.0.0.0',
      '10.0.0.0/',
      '10.0.0.0/33',
      '10.0.0.0/08',
      '10.0.0.1/8',
      '010.0.0.0/8',
      '10.0.0/8',
      '256.0.0.0/8',
      ' 10.0.0.0/8',
      '::/129',
      '::1/64',
      'fe80::%eth0/10',
      '::ffff:10.0.0.0/104',
      'fc00:::/7',
      'g::/16',
      '10.0.0.0/8/8',
      '',
    ];
    for (const text of bad) expect(parseCidr(text), text).toBeNull();
  });

  it('are ordered before the gateway: ServiceAccount, default deny, allows, ConfigMap, Secret, Deployment, then the Service', () => {
    const ordered = renderAgentWorkload(input());
    expect(ordered.map((o) => [o.order, o.phase, o.object.kind, o.object.metadata.name.replace(/^occ-agt-[0-9a-f-]{36}/, '…')])).toEqual([
      [0, 'agent', 'ServiceAccount', '…'],
      [1, 'agent', 'NetworkPolicy', '…-default-deny'],
      [2, 'agent', 'NetworkPolicy', '…-allow-egress'],
      [3, 'agent', 'NetworkPolicy', '…-allow-status'],
      [4, 'revision', 'ConfigMap', '…-r3-manifest'],
      [5, 'revision', 'Secret', '…-r3-environment'],
      [6, 'revision', 'Deployment', '…-gateway'],
      [7, 'activation', 'Service', '…'],
    ]);
  });
});

describe('Kubernetes rendering: Service, labels, owners, names', () => {
  it("the Service selects the active revision's gateway pod only, on the gateway port", () => {
    const i = input();
    const objects = rendered(i);
    const service = one(objects, 'Service');
    const template = (one(objects, 'Deployment').spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const spec = service.spec as { selector: Record<string, string>; ports: unknown; type: string };
    expect(spec.selector).toEqual({ [LABEL_AGENT_ID]: i.agent.agentId, 'app.kubernetes.io/component': 'gateway', [LABEL_REVISION_ID]: i.manifest.revisionId });
    expect(template).toMatchObject(spec.selector);
    expect(spec.type).toBe('ClusterIP');
    expect(spec.ports).toEqual([{ name: 'gateway', protocol: 'TCP', port: 18789, targetPort: 'gateway' }]);
    const next = renderService(i.agent, { revisionId: `rev_${randomUUID()}`, revision: 4 }, { gatewayPort: 18789 }, owner);
    expect(next.metadata.name).toBe(service.metadata.name);
    expect((next.spec as { selector: Record<string, string> }).selector[LABEL_REVISION_ID]).not.toBe(i.manifest.revisionId);
  });

  it('every object carries the app.kubernetes.io labels and the Agent id; revision-scoped objects the revision id; all values are valid label values', () => {
    const i = input();
    const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
    for (const object of rendered(i)) {
      const labels = object.metadata.labels;
      expect(object.metadata.namespace).toBe('occ-agents');
      for (const key of ['name', 'instance', 'component', 'part-of', 'managed-by']) expect(labels[`app.kubernetes.io/${key}`], `${object.kind} ${key}`).toBeTruthy();
      expect(labels[LABEL_AGENT_ID]).toBe(i.agent.agentId);
      expect(labels['occ.dev/namespace-id']).toBe(i.agent.namespaceId);
      if (['ConfigMap', 'Secret', 'Deployment', 'Service'].includes(object.kind)) expect(labels[LABEL_REVISION_ID]).toBe(i.manifest.revisionId);
      else expect(labels[LABEL_REVISION_ID]).toBeUndefined();
      for (const value of Object.values(labels)) expect(value.length <= 63 && LABEL_VALUE.test(value), value).toBe(true);
    }
  });

  it('the ServiceAccount is the root; every other object names the given owner as its controlling owner', () => {
    for (const object of rendered()) {
      if (object.kind === 'ServiceAccount') expect(object.metadata.ownerReferences).toBeUndefined();
      else expect(object.metadata.ownerReferences).toEqual([{ ...owner, controller: true, blockOwnerDeletion: true }]);
    }
    expect(() => rendered({ ...input(), owner: { ...owner, uid: '' } })).toThrow('owner uid');
    expect(() => rendered({ ...input(), owner: { ...owner, name: 'Not_A_Name' } })).toThrow('owner name');
  });

  it('names are DNS-1123 labels within their limits, stable per Agent across revisions, distinct between Agents and revisions', () => {
    const who = agent();
    const first = rendered(input(who, manifestFor(who, { revision: 1 })));
    const second = rendered(input(who, manifestFor(who, { revision: 2 })));
    const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
    for (const object of [...first, ...second]) {
      expect(object.metadata.name).toMatch(DNS_LABEL);
      expect(object.metadata.name.length).toBeLessThanOrEqual(object.kind === 'Deployment' ? 52 : 63);
    }
    const names = (objects: KubernetesObject[], kinds: string[]) => objects.filter((o) => kinds.includes(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`);
    const agentScoped = ['ServiceAccount', 'NetworkPolicy', 'Deployment', 'Service'];
    expect(names(second, agentScoped)).toEqual(names(first, agentScoped));
    expect(names(second, ['ConfigMap', 'Secret'])).not.toEqual(names(first, ['ConfigMap', 'Secret']));
    const other = rendered();
    const all = new Set([...first, ...other].map((o) => `${o.kind}/${o.metadata.name}`));
    expect(all.size).toBe(first.length + other.length);
  });

  it('a name longer than its limit is cut and ends in a hash of the whole name, so long names sharing a prefix stay distinct', () => {
    const long = `occ-${'a'.repeat(80)}`;
    const a = dnsLabel(`${long}-one`);
    const b = dnsLabel(`${long}-two`);
    expect(a).toHaveLength(63);
    expect(a).toMatch(/^occ-a+-[0-9a-f]{10}$/);
    expect(a).not.toBe(b);
    expect(dnsLabel(`${long}-one`)).toBe(a);
    expect(dnsLabel('OCC_Agent.Name!', 52)).toBe('occ-agent-name');
    expect(dnsLabel('9-lives')).toBe('x-9-lives');
    expect(dnsLabel(`occ-${'b'.repeat(100)}`, 52)).toHaveLength(52);
    // The revision number grows without bound; the name still fits.
    expect(revisionObjectNames(`agt_${randomUUID()}`, Number.MAX_SAFE_INTEGER).environment.length).toBeLessThanOrEqual(63);
  });
});
