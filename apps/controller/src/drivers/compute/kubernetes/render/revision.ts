import { TypeCompiler } from '@sinclair/typebox/compiler';
import { CODEX_PAT_ENVIRONMENT, RuntimeManifestSchema, type RuntimeManifest } from '@occ/contracts';
import { CONTAINER_PATHS } from '../../runtime-contract/container-paths.ts';
import { checkStatusPort, type AgentNetworkSettings } from './agent.ts';
import { appServerVariableNames, CODEX_APP_SERVER_CONTAINER, CODEX_POD_PORTS, codexAppServerVariables, codexGatewayVariables, gatewayVariableNames } from './codex-app-server.ts';
import { agentObjectNames, checkAgentIdentity, gatewaySelector, objectLabels, revisionObjectNames, type AgentIdentity, type RevisionIdentity } from './names.ts';
import { ownerReference, type OwnerObject } from './owner.ts';
import { POD_GATEWAY_PORT } from './pod-ports.ts';
import { KubernetesRenderError, type KubernetesObject } from './types.ts';

/** One revision's objects: the manifest ConfigMap, the delivered-environment Secret, and the gateway Deployment's template. */

/** The API server refuses a ConfigMap whose data exceeds 1 MiB; counted here as key plus value bytes (a little stricter). */
export const MAX_CONFIGMAP_BYTES = 1024 * 1024;
export const MANIFEST_KEY = 'manifest.json';

/** Where things are inside the gateway pod: the runtime image's paths (CONTAINER_PATHS), and the projected manifest. */
export const POD_PATHS = {
  manifestDir: '/etc/occ/manifest',
  manifest: `/etc/occ/manifest/${MANIFEST_KEY}`,
  /** The private temporary home: one emptyDir, its subdirectories mounted below. */
  home: CONTAINER_PATHS.home,
  tmp: CONTAINER_PATHS.tmp,
  revisionDir: CONTAINER_PATHS.revisionDir,
  stateDir: CONTAINER_PATHS.stateDir,
} as const;

/** The runtime's tokens: always delivered through the Secret (the status token is also how the controller reads status). */
const REQUIRED_RUNTIME_SECRETS = ['OCC_RUNTIME_STATUS_TOKEN', 'OCC_RUNTIME_GATEWAY_TOKEN'] as const;

/**
 * Where the runtime serves in a pod: its startup status and its gateway bind the pod's own IP
 * (from the downward API, `status.podIP`: reached by the API server's pod proxy, the controller
 * and the Service) on fixed ports the NetworkPolicies and the Service name.
 */
const STATUS_ADDRESS_ENVIRONMENT = 'OCC_RUNTIME_STATUS_ADDRESS';
const STATUS_PORT_ENVIRONMENT = 'OCC_RUNTIME_STATUS_PORT';
const GATEWAY_ADDRESS_ENVIRONMENT = 'OCC_RUNTIME_GATEWAY_ADDRESS';
const GATEWAY_PORT_ENVIRONMENT = 'OCC_RUNTIME_GATEWAY_PORT';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,252}$/;
const isManifest = TypeCompiler.Compile(RuntimeManifestSchema);

const invalid = (message: string): never => {
  throw new KubernetesRenderError('KUBERNETES_RENDER_INPUT_INVALID', message);
};

/** The manifest's identity, checked against the Agent's (a manifest of another Agent is never projected into this one's pods). */
export function manifestRevision(agent: AgentIdentity, manifest: RuntimeManifest): RevisionIdentity {
  checkAgentIdentity(agent);
  if (!isManifest.Check(manifest)) invalid('The runtime manifest does not match RuntimeManifestSchema.');
  if (manifest.agentId !== agent.agentId || manifest.namespaceId !== agent.namespaceId) invalid('The runtime manifest belongs to another Agent.');
  return { revisionId: manifest.revisionId, revision: manifest.revision };
}

/**
 * The revision's runtime manifest as an immutable ConfigMap (one per revision, so the running
 * gateway's projected file never changes under it) [P-2]. Larger than a ConfigMap can hold:
 * refused with RUNTIME_MANIFEST_TOO_LARGE, naming both sizes.
 */
export function renderManifestConfigMap(agent: AgentIdentity, manifest: RuntimeManifest, owner: OwnerObject): KubernetesObject {
  const revision = manifestRevision(agent, manifest);
  const text = `${JSON.stringify(manifest)}\n`;
  const bytes = Buffer.byteLength(MANIFEST_KEY) + Buffer.byteLength(text);
  if (bytes > MAX_CONFIGMAP_BYTES) {
    throw new KubernetesRenderError('RUNTIME_MANIFEST_TOO_LARGE', `The runtime manifest is ${bytes} bytes; a Kubernetes ConfigMap holds at most ${MAX_CONFIGMAP_BYTES} bytes.`);
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: revisionObjectNames(agent.agentId, revision.revision).manifest,
      namespace: agent.kubernetesNamespace,
      labels: objectLabels(agent, 'runtime-manifest', revision),
      ownerReferences: [ownerReference(owner)],
    },
    immutable: true,
    data: { [MANIFEST_KEY]: text },
  };
}

type PlainVariable = { name: string; value: string } | { name: string; valueFrom: { fieldRef: { fieldPath: string } } };
const podIp = (name: string): PlainVariable => ({ name, valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });

/** Where a runtime container finds its manifest and keeps its private files. */
function pathEnvironment(): PlainVariable[] {
  return [
    { name: 'HOME', value: POD_PATHS.home },
    { name: 'TMPDIR', value: POD_PATHS.tmp },
    { name: 'OCC_RUNTIME_MANIFEST', value: POD_PATHS.manifest },
    { name: 'OCC_RUNTIME_REVISION_DIR', value: POD_PATHS.revisionDir },
    { name: 'OCC_RUNTIME_STATE_DIR', value: POD_PATHS.stateDir },
  ];
}

/** The variables the Deployment sets itself: paths, ports and the pod's IP only, never a credential. */
function plainEnvironment(statusPort: number, gatewayPort: number): PlainVariable[] {
  return [
    ...pathEnvironment(),
    podIp(STATUS_ADDRESS_ENVIRONMENT),
    { name: STATUS_PORT_ENVIRONMENT, value: String(statusPort) },
    podIp(GATEWAY_ADDRESS_ENVIRONMENT),
    { name: GATEWAY_PORT_ENVIRONMENT, value: String(gatewayPort) },
  ];
}
const PLAIN_NAMES = new Set(plainEnvironment(1, 2).map((v) => v.name));

/**
 * The delivered environment's names, checked against the revision: well-formed, distinct, none
 * the Deployment sets by value, the runtime's tokens present, and every variable the manifest
 * promises (its `secretEnvironment`, and the codex_pat's variable when it names one) present.
 * (The driver applies the reserved-variable rule to Secret bindings before this, as local does.)
 */
function checkEnvironmentNames(names: readonly string[], manifest: RuntimeManifest): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (!ENV_NAME.test(name)) invalid(`${JSON.stringify(name.slice(0, 64))} is not an environment variable name.`);
    if (seen.has(name)) invalid(`${name} is delivered twice.`);
    if (PLAIN_NAMES.has(name)) invalid(`${name} is set by the Deployment itself and cannot be delivered.`);
    seen.add(name);
  }
  const required = [...REQUIRED_RUNTIME_SECRETS, ...manifest.secretEnvironment, ...(manifest.harnessAuth ? [CODEX_PAT_ENVIRONMENT] : [])];
  const missing = required.filter((name) => !seen.has(name));
  if (missing.length > 0) invalid(`The delivered environment lacks ${missing.join(', ')}.`);
}

/**
 * The revision's delivered environment as a Secret (`stringData`, one key per variable): the
 * runtime's tokens, the revision's Secret bindings, the codex_pat, and the runtime network
 * settings (a proxy URL may carry credentials). Not immutable: the driver rewrites it when a
 * start is re-authorized.
 */
export function renderEnvironmentSecret(agent: AgentIdentity, manifest: RuntimeManifest, values: Readonly<Record<string, string>>, owner: OwnerObject): KubernetesObject {
  const revision = manifestRevision(agent, manifest);
  checkEnvironmentNames(Object.keys(values), manifest);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: revisionObjectNames(agent.agentId, revision.revision).environment,
      namespace: agent.kubernetesNamespace,
      labels: objectLabels(agent, 'runtime-environment', revision),
      ownerReferences: [ownerReference(owner)],
    },
    type: 'Opaque',
    stringData: { ...values },
  };
}

export interface ResourceQuantities {
  cpu: string;
  memory: string;
  'ephemeral-storage'?: string;
}

export interface GatewaySettings extends Pick<AgentNetworkSettings, 'statusPort'> {
  /** The gateway's port in the pod (default POD_GATEWAY_PORT, pod-ports.ts); the Service targets it. */
  gatewayPort?: number;
  /** The runtime image (apps/runtime's Dockerfile), by digest in production. */
  image: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** Overrides the image's entrypoint (default: the image's own). */
  command?: string[];
  resources: { requests: ResourceQuantities; limits: ResourceQuantities };
  /** The non-root user and group the runtime runs as (default 10001). */
  runAsUser?: number;
  runAsGroup?: number;
  /** The private temporary home's size limit (default 2Gi, a Codex Agent's 4Gi: installed plugins and npm's cache live there). */
  homeSizeLimit?: string;
  terminationGracePeriodSeconds?: number;
}

const DEFAULT_RUNTIME_USER = 10001;

/**
 * A Codex Agent's private home holds the harness plugin (344 MB) and OpenClaw's copy of it per
 * plugin generation in the gateway's temporary directory: 1.8 GiB once it serves, one more copy
 * per turn (measured in a container, docs/compute-docker.md), past a 2Gi limit the pod is evicted.
 */
function defaultHomeSizeLimit(manifest: RuntimeManifest): string {
  return manifest.harness === 'codex' ? '4Gi' : '2Gi';
}
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$/;

function checkGatewaySettings(settings: GatewaySettings): void {
  checkStatusPort(settings.statusPort);
  const gatewayPort = settings.gatewayPort ?? POD_GATEWAY_PORT;
  if (!Number.isInteger(gatewayPort) || gatewayPort < 1 || gatewayPort > 65535 || gatewayPort === settings.statusPort)
    invalid('gatewayPort must be a port number other than statusPort.');
  if (!settings.image || /\s/.test(settings.image)) invalid('image must be an image reference.');
  for (const [kind, quantities] of Object.entries(settings.resources)) {
    for (const [name, value] of Object.entries(quantities as ResourceQuantities)) if (!QUANTITY.test(value)) invalid(`resources.${kind}.${name} is not a Kubernetes quantity.`);
  }
  if (!settings.resources.limits.memory || !settings.resources.limits.cpu) invalid('resources.limits needs cpu and memory.');
  for (const id of [settings.runAsUser, settings.runAsGroup])
    if (id !== undefined && (!Number.isInteger(id) || id < 1)) invalid('runAsUser and runAsGroup must be non-root ids (≥ 1).');
  if (settings.homeSizeLimit !== undefined && !QUANTITY.test(settings.homeSizeLimit)) invalid('homeSizeLimit is not a Kubernetes quantity.');
}

/**
 * The Agent's gateway Deployment, with this revision in its pod template: one replica, Recreate
 * (the old pod is gone before the new one starts) [P-6]; a hardened pod (non-root, read-only
 * root filesystem, no capabilities, no privilege escalation, seccomp RuntimeDefault, no API
 * token, no service links); an emptyDir as the private temporary home (HOME, TMPDIR, /tmp, the
 * revision directory and the OpenClaw state) [P-8]; the manifest projected read-only [P-2];
 * every delivered variable from the revision's Secret by key (no value in the Deployment);
 * readiness = the status port accepts connections (a TCP check: an HTTP check would need the
 * status token in the pod spec; the driver judges the status itself through the pod proxy).
 * A Codex revision's pod has a second container, the app-server (codex-app-server.ts).
 */
export function renderGatewayDeployment(input: {
  agent: AgentIdentity;
  manifest: RuntimeManifest;
  /** The names of the variables in the revision's Secret (values never reach this function). */
  environmentNames: readonly string[];
  settings: GatewaySettings;
  owner: OwnerObject;
}): KubernetesObject {
  const { agent, manifest, settings } = input;
  const revision = manifestRevision(agent, manifest);
  checkEnvironmentNames(input.environmentNames, manifest);
  checkGatewaySettings(settings);
  const names = agentObjectNames(agent.agentId);
  const revisionNames = revisionObjectNames(agent.agentId, revision.revision);
  const user = settings.runAsUser ?? DEFAULT_RUNTIME_USER;
  const group = settings.runAsGroup ?? user;
  const seccompProfile = { type: 'RuntimeDefault' };
  const codex = manifest.harness === 'codex';
  // The manifest read-only, and home, tmp, revision and state as subdirectories of one private emptyDir.
  const privateMounts = (volume: string) => {
    const at = (subPath: string, mountPath: string) => ({ name: volume, mountPath, subPath });
    return [
      { name: 'manifest', mountPath: POD_PATHS.manifestDir, readOnly: true },
      at('home', POD_PATHS.home),
      at('tmp', POD_PATHS.tmp),
      at('tmp', '/tmp'),
      at('revision', POD_PATHS.revisionDir),
      at('state', POD_PATHS.stateDir),
    ];
  };
  const fromSecret = (names: readonly string[]) => names.map((name) => ({ name, valueFrom: { secretKeyRef: { name: revisionNames.environment, key: name, optional: false } } }));
  // Every container hardened alike; readiness = its status port accepts connections.
  const container = (name: string, parts: { ports: object[]; env: object[]; volumeMounts: object[] }) => ({
    name,
    image: settings.image,
    imagePullPolicy: settings.imagePullPolicy ?? 'IfNotPresent',
    ...(settings.command ? { command: [...settings.command] } : {}),
    ports: parts.ports,
    env: parts.env,
    resources: { requests: { ...settings.resources.requests }, limits: { ...settings.resources.limits } },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: user,
      runAsGroup: group,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile,
    },
    readinessProbe: { tcpSocket: { port: name === 'runtime' ? 'status' : CODEX_POD_PORTS.status }, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 3 },
    volumeMounts: parts.volumeMounts,
  });
  const labels = objectLabels(agent, 'gateway', revision);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.deployment, namespace: agent.kubernetesNamespace, labels, ownerReferences: [ownerReference(input.owner)] },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      revisionHistoryLimit: 2,
      selector: { matchLabels: gatewaySelector(agent) },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: names.serviceAccount,
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: settings.terminationGracePeriodSeconds ?? 30,
          securityContext: { runAsNonRoot: true, runAsUser: user, runAsGroup: group, fsGroup: group, seccompProfile },
          containers: [
            container('runtime', {
              ports: [
                { name: 'status', containerPort: settings.statusPort, protocol: 'TCP' },
                { name: 'gateway', containerPort: settings.gatewayPort ?? POD_GATEWAY_PORT, protocol: 'TCP' },
              ],
              env: [
                ...plainEnvironment(settings.statusPort, settings.gatewayPort ?? POD_GATEWAY_PORT),
                ...(codex ? codexGatewayVariables() : []),
                ...fromSecret(codex ? gatewayVariableNames(input.environmentNames) : input.environmentNames),
              ],
              volumeMounts: privateMounts('home'),
            }),
            // A Codex revision's app-server: its own private emptyDir, the codex_pat, no port the Service or a NetworkPolicy names.
            ...(codex
              ? [
                  container(CODEX_APP_SERVER_CONTAINER, {
                    ports: [],
                    env: [...pathEnvironment(), ...codexAppServerVariables(), ...fromSecret(appServerVariableNames(input.environmentNames))],
                    volumeMounts: privateMounts('codex'),
                  }),
                ]
              : []),
          ],
          volumes: [
            {
              name: 'manifest',
              projected: { defaultMode: 0o440, sources: [{ configMap: { name: revisionNames.manifest, optional: false, items: [{ key: MANIFEST_KEY, path: MANIFEST_KEY }] } }] },
            },
            { name: 'home', emptyDir: { sizeLimit: settings.homeSizeLimit ?? defaultHomeSizeLimit(manifest) } },
            ...(codex ? [{ name: 'codex', emptyDir: { sizeLimit: settings.homeSizeLimit ?? defaultHomeSizeLimit(manifest) } }] : []),
          ],
        },
      },
    },
  };
}
