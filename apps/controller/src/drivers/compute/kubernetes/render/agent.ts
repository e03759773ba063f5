import { parseCidr } from './cidr.ts';
import {
  agentObjectNames,
  agentPodSelector,
  checkAgentIdentity,
  checkRevisionIdentity,
  gatewaySelector,
  isDnsLabel,
  LABEL_REVISION_ID,
  objectLabels,
  type AgentIdentity,
  type RevisionIdentity,
} from './names.ts';
import { ownerReference, type OwnerObject } from './owner.ts';
import { KubernetesRenderError, type KubernetesObject, type Labels } from './types.ts';

/** The objects of the Agent as a whole: its ServiceAccount, NetworkPolicies and Service. */

export interface AgentNetworkSettings {
  /** The runtime's startup-status port (the container port named `status`). */
  statusPort: number;
  /** The controller's pods: the only pods whose traffic may reach the status port. */
  controller: { kubernetesNamespace: string; podLabels: Labels };
  /**
   * Optional CIDRs that may also reach the status port: where the API server's pod proxy
   * connects from, on clusters whose network plugin enforces policy on that traffic. Empty
   * (the default): only the controller's pods.
   */
  apiServerCidrs?: readonly string[];
  /** The namespace the cluster DNS runs in (default `kube-system`). */
  dnsNamespace?: string;
  /**
   * CIDRs excluded from the internet rule besides the built-in private ranges: the cluster's pod
   * and service ranges (and the API server's address) when they are public addresses.
   */
  egressExcept?: readonly string[];
  /** CIDRs an Agent may reach on TCP 443 despite the exclusions (e.g. an in-cluster model proxy). */
  egressAllow?: readonly string[];
}

/**
 * Never reached through the internet rule: where the API server, nodes, pods, Services and the
 * cloud metadata endpoint live on almost every cluster (private, CGNAT, link-local, loopback).
 */
const AGENT_EGRESS_EXCEPT_IPV4: readonly string[] = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'];
const AGENT_EGRESS_EXCEPT_IPV6: readonly string[] = ['fc00::/7', 'fe80::/10', '::1/128'];

const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export function checkStatusPort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new KubernetesRenderError('KUBERNETES_RENDER_INPUT_INVALID', 'statusPort must be a port number (1–65535).');
}

function checkNetworkSettings(settings: AgentNetworkSettings): void {
  const bad = (message: string): never => {
    throw new KubernetesRenderError('KUBERNETES_RENDER_INPUT_INVALID', message);
  };
  checkStatusPort(settings.statusPort);
  if (!isDnsLabel(settings.controller.kubernetesNamespace)) bad("The controller's namespace must be a DNS-1123 label.");
  if (Object.keys(settings.controller.podLabels).length === 0) bad("The controller's pod labels must select something: an empty selector would admit every pod.");
  if (settings.dnsNamespace !== undefined && !isDnsLabel(settings.dnsNamespace)) bad('dnsNamespace must be a DNS-1123 label.');
  const fields = { apiServerCidrs: settings.apiServerCidrs, egressExcept: settings.egressExcept, egressAllow: settings.egressAllow };
  for (const [field, cidrs] of Object.entries(fields)) {
    (cidrs ?? []).forEach((cidr, index) => {
      const parsed = parseCidr(cidr);
      if (!parsed) bad(`${field}: item ${index + 1} is not a CIDR (address/prefix, no host bits set).`);
      // The API server accepts an `except` only strictly inside its `cidr`.
      if (field === 'egressExcept' && parsed?.prefix === 0) bad(`${field}: item ${index + 1} is a /0; it would exclude the whole internet.`);
    });
  }
}

/** The Agent's ServiceAccount: the identity of its pods and the owner of its other objects; no API token is mounted. */
export function renderServiceAccount(agent: AgentIdentity): KubernetesObject {
  checkAgentIdentity(agent);
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: agentObjectNames(agent.agentId).serviceAccount, namespace: agent.kubernetesNamespace, labels: objectLabels(agent, 'identity') },
    automountServiceAccountToken: false,
  };
}

/**
 * The Agent's NetworkPolicies, in the order they are applied, all before the first gateway:
 * 1. default deny: every pod of the Agent, Ingress and Egress, no rule (nothing allowed);
 * 2. egress: TCP 443 to the internet (`0.0.0.0/0` and `::/0` except `AGENT_EGRESS_EXCEPT_*` and
 *    `egressExcept`: not the API server, nodes, pods or Services), TCP 443 to each `egressAllow`
 *    CIDR, and DNS (UDP and TCP 53) to the cluster DNS namespace only;
 * 3. status: ingress on the status port only, only from the controller's pods (and the optional
 *    API-server CIDRs).
 * Policies are additive, so 2 and 3 are exactly what the Agent's pods may do.
 */
export function renderNetworkPolicies(agent: AgentIdentity, settings: AgentNetworkSettings, owner: OwnerObject): KubernetesObject[] {
  checkAgentIdentity(agent);
  checkNetworkSettings(settings);
  const names = agentObjectNames(agent.agentId);
  const podSelector = { matchLabels: agentPodSelector(agent) };
  const meta = (name: string) => ({ name, namespace: agent.kubernetesNamespace, labels: objectLabels(agent, 'network-policy'), ownerReferences: [ownerReference(owner)] });
  const policy = (name: string, spec: Record<string, unknown>): KubernetesObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta(name), spec });
  const statusPeers: Record<string, unknown>[] = [
    { namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: settings.controller.kubernetesNamespace } }, podSelector: { matchLabels: { ...settings.controller.podLabels } } },
    ...(settings.apiServerCidrs ?? []).map((cidr) => ({ ipBlock: { cidr } })),
  ];
  const https = () => [{ protocol: 'TCP', port: 443 }];
  const except = settings.egressExcept ?? [];
  const ofFamily = (family: 4 | 6) => except.filter((cidr) => parseCidr(cidr)!.family === family);
  const internet = [
    { ipBlock: { cidr: '0.0.0.0/0', except: [...new Set([...AGENT_EGRESS_EXCEPT_IPV4, ...ofFamily(4)])] } },
    { ipBlock: { cidr: '::/0', except: [...new Set([...AGENT_EGRESS_EXCEPT_IPV6, ...ofFamily(6)])] } },
  ];
  return [
    policy(names.networkPolicyDefaultDeny, { podSelector, policyTypes: ['Ingress', 'Egress'] }),
    policy(names.networkPolicyEgress, {
      podSelector,
      policyTypes: ['Egress'],
      egress: [
        { to: internet, ports: https() },
        ...(settings.egressAllow ?? []).map((cidr) => ({ to: [{ ipBlock: { cidr } }], ports: https() })),
        {
          to: [{ namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: settings.dnsNamespace ?? 'kube-system' } } }],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
      ],
    }),
    policy(names.networkPolicyStatus, {
      podSelector,
      policyTypes: ['Ingress'],
      ingress: [{ from: statusPeers, ports: [{ protocol: 'TCP', port: settings.statusPort }] }],
    }),
  ];
}

/**
 * The Agent's Service: selects the gateway pod of the ACTIVE revision only (the driver points it
 * at a revision once that revision is activated, never before), on the gateway port.
 */
export function renderService(agent: AgentIdentity, active: RevisionIdentity, settings: { gatewayPort: number }, owner: OwnerObject): KubernetesObject {
  checkAgentIdentity(agent);
  checkRevisionIdentity(active);
  checkStatusPort(settings.gatewayPort);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: agentObjectNames(agent.agentId).service,
      namespace: agent.kubernetesNamespace,
      labels: objectLabels(agent, 'gateway-service', active),
      ownerReferences: [ownerReference(owner)],
    },
    spec: {
      type: 'ClusterIP',
      selector: { ...gatewaySelector(agent), [LABEL_REVISION_ID]: active.revisionId },
      ports: [{ name: 'gateway', protocol: 'TCP', port: settings.gatewayPort, targetPort: 'gateway' }],
    },
  };
}
