import { KubeConfig } from '@kubernetes/client-node';
import { isDnsLabel, parseCidr, POD_GATEWAY_PORT, POD_STATUS_PORT, type Labels, type ResourceQuantities } from './render/index.ts';

/** A Kubernetes setting OCC cannot use: `occ up` / `occ worker` refuse to start, naming the variable (never its value). */
export class KubernetesSettingError extends Error {
  override readonly name = 'KubernetesSettingError';
}

/** What the kubernetes ComputeDriver reads from the environment once, at startup (docs/compute-kubernetes.md). */
export interface KubernetesComputeSettings {
  /** KUBECONFIG (one file), else the in-cluster ServiceAccount, else ~/.kube/config (KubeConfig.loadFromDefault). */
  kubeConfig: KubeConfig;
  /** OCC_KUBERNETES_NAMESPACE: where every Agent's objects live. */
  namespace: string;
  /** OCC_RUNTIME_IMAGE: the runtime image (by digest in production). */
  image: string;
  /** The controller's pods, the only ones the status NetworkPolicy admits. */
  controller: { kubernetesNamespace: string; podLabels: Labels };
  resources: { requests: ResourceQuantities; limits: ResourceQuantities };
  /**
   * The Agents' TCP 443 egress beyond the built-in exclusions: OCC_KUBERNETES_AGENT_EGRESS_EXCEPT
   * (more CIDRs kept out of the internet rule) and OCC_KUBERNETES_AGENT_EGRESS_ALLOW (CIDRs
   * reachable despite the exclusions).
   */
  agentEgress: { except: string[]; allow: string[] };
  statusPort: number;
  gatewayPort: number;
}

const DEFAULT_CONTROLLER_LABELS: Labels = { 'app.kubernetes.io/name': 'occ' };
/** Requests are what the scheduler reserves; limits stop a runaway plugin from starving its node. */
const DEFAULT_RUNTIME_CPU = '1';
const DEFAULT_RUNTIME_MEMORY = '2Gi';

const QUANTITY = /^(?:\d+(?:\.\d*)?|\.\d+)(?:Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$/;
const LABEL_KEY = /^(?:[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

export function kubernetesComputeSettings(env: NodeJS.ProcessEnv): KubernetesComputeSettings {
  const namespace = required(env, 'OCC_KUBERNETES_NAMESPACE');
  if (!isDnsLabel(namespace)) fail('OCC_KUBERNETES_NAMESPACE must be a Kubernetes namespace name (a DNS-1123 label).');
  const image = required(env, 'OCC_RUNTIME_IMAGE');
  if (/\s/.test(image) || image.length > 512) fail('OCC_RUNTIME_IMAGE must be an image reference (no spaces).');
  const controllerNamespace = env.OCC_KUBERNETES_CONTROLLER_NAMESPACE || namespace;
  if (!isDnsLabel(controllerNamespace)) fail('OCC_KUBERNETES_CONTROLLER_NAMESPACE must be a DNS-1123 label.');
  // A pod cannot mount a directory of OCC's host: refused rather than handed paths that do not exist there.
  if ((env.OCC_CODEX_MARKETPLACES ?? '').split(':').some((dir) => dir !== '')) {
    fail(
      'OCC_CODEX_MARKETPLACES names directories of this host, which a pod cannot mount: on kubernetes a Codex Agent takes its plugins from the hosted catalog (unset it, or use the docker or local driver).',
    );
  }
  const cpu = quantity(env, 'OCC_RUNTIME_CPU', DEFAULT_RUNTIME_CPU);
  const memory = quantity(env, 'OCC_RUNTIME_MEMORY', DEFAULT_RUNTIME_MEMORY);
  return {
    kubeConfig: loadKubeConfig(env),
    namespace,
    image,
    controller: { kubernetesNamespace: controllerNamespace, podLabels: controllerLabels(env.OCC_KUBERNETES_CONTROLLER_LABELS) },
    // Requests equal limits: the gateway gets a Guaranteed QoS class and is evicted last.
    resources: { requests: { cpu, memory }, limits: { cpu, memory } },
    agentEgress: { except: cidrList(env, 'OCC_KUBERNETES_AGENT_EGRESS_EXCEPT'), allow: cidrList(env, 'OCC_KUBERNETES_AGENT_EGRESS_ALLOW') },
    statusPort: POD_STATUS_PORT,
    gatewayPort: POD_GATEWAY_PORT,
  };
}

function loadKubeConfig(env: NodeJS.ProcessEnv): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (env.KUBECONFIG) {
      if (env.KUBECONFIG.includes(':')) fail('KUBECONFIG must name one file.');
      kc.loadFromFile(env.KUBECONFIG);
    } else {
      kc.loadFromDefault();
    }
  } catch (error) {
    if (error instanceof KubernetesSettingError) throw error;
    // The file's own text may hold a token: only the setting is named.
    fail(env.KUBECONFIG ? 'KUBECONFIG cannot be read as a kubeconfig file.' : 'No Kubernetes configuration: set KUBECONFIG or run in a pod with a ServiceAccount.');
  }
  if (!kc.getCurrentCluster()) fail(env.KUBECONFIG ? 'KUBECONFIG names no current cluster.' : 'No Kubernetes configuration: set KUBECONFIG or run in a pod with a ServiceAccount.');
  return kc;
}

/** `k=v,k=v` (spaces around items ignored); default app.kubernetes.io/name=occ. */
function controllerLabels(value: string | undefined): Labels {
  if (value === undefined || value.trim() === '') return { ...DEFAULT_CONTROLLER_LABELS };
  const labels: Labels = {};
  for (const item of value.split(',').map((part) => part.trim())) {
    const eq = item.indexOf('=');
    const key = item.slice(0, eq);
    const label = item.slice(eq + 1);
    if (eq < 1 || !LABEL_KEY.test(key) || !LABEL_VALUE.test(label) || label === '')
      fail('OCC_KUBERNETES_CONTROLLER_LABELS must be k=v pairs separated by commas (Kubernetes label keys and values).');
    labels[key] = label;
  }
  return labels;
}

/** Comma-separated CIDRs (spaces around items ignored); unset or blank: none. */
function cidrList(env: NodeJS.ProcessEnv, name: string): string[] {
  const value = env[name];
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((item, index) => {
    const cidr = parseCidr(item.trim());
    if (!cidr) fail(`${name} must be IPv4 or IPv6 CIDRs separated by commas (address/prefix, no host bits set, e.g. 203.0.113.0/24); item ${index + 1} is not.`);
    // An ipBlock `except` must be strictly inside 0.0.0.0/0 or ::/0.
    if (cidr.prefix === 0 && name === 'OCC_KUBERNETES_AGENT_EGRESS_EXCEPT') fail(`${name}: item ${index + 1} is a /0, which would exclude the whole internet.`);
    return item.trim();
  });
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) fail(`${name} is required with OCC_COMPUTE_DRIVER=kubernetes.`);
  return value;
}

function quantity(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name] || fallback;
  if (!QUANTITY.test(value) || /^0*\.?0*[a-zA-Z]*$/.test(value)) fail(`${name} must be a positive Kubernetes quantity (e.g. ${fallback}).`);
  return value;
}

function fail(message: string): never {
  throw new KubernetesSettingError(message);
}
