import type { RuntimeManifest } from '@occ/contracts';
import { renderNetworkPolicies, renderService, renderServiceAccount, type AgentNetworkSettings } from './agent.ts';
import type { AgentIdentity } from './names.ts';
import type { OwnerObject } from './owner.ts';
import { POD_GATEWAY_PORT } from './pod-ports.ts';
import { manifestRevision, renderEnvironmentSecret, renderGatewayDeployment, renderManifestConfigMap, type GatewaySettings } from './revision.ts';
import type { KubernetesObject } from './types.ts';

export * from './agent.ts';
export * from './cidr.ts';
export * from './names.ts';
export * from './owner.ts';
export * from './pod-ports.ts';
export * from './revision.ts';
export * from './types.ts';

/**
 * When the driver applies an object:
 * - `agent`: once per Agent, before its first gateway (the ServiceAccount, then the
 *   NetworkPolicies, so the Agent's pods are denied everything but the exact allows from the
 *   moment the first one is scheduled) — re-applied unchanged on every prepare;
 * - `revision`: each revision's manifest ConfigMap and environment Secret, then the gateway
 *   Deployment that references them;
 * - `activation`: the Service, pointed at the revision once its status is judged ready.
 */
export type ApplyPhase = 'agent' | 'revision' | 'activation';

export interface OrderedObject {
  /** Apply in ascending order, each one accepted by the API server before the next. */
  order: number;
  phase: ApplyPhase;
  object: KubernetesObject;
}

export interface AgentWorkloadInput {
  agent: AgentIdentity;
  manifest: RuntimeManifest;
  /** Every variable the runtime gets from the revision's Secret, with its value (the Secret's stringData only). */
  environment: Readonly<Record<string, string>>;
  gateway: GatewaySettings;
  network: Omit<AgentNetworkSettings, 'statusPort'>;
  /** The owner of everything but the ServiceAccount: normally that ServiceAccount once created (owner.ts). */
  owner: OwnerObject;
}

/**
 * Everything one revision of an Agent needs, in apply order: ServiceAccount, the three
 * NetworkPolicies (default deny first), the manifest ConfigMap, the environment Secret, the
 * gateway Deployment, and the Service selecting this revision. The Deployment is rendered from
 * the variables' NAMES only; their values appear in the Secret and nowhere else.
 */
export function renderAgentWorkload(input: AgentWorkloadInput): OrderedObject[] {
  const revision = manifestRevision(input.agent, input.manifest);
  const network: AgentNetworkSettings = { ...input.network, statusPort: input.gateway.statusPort };
  const sequence: [ApplyPhase, KubernetesObject][] = [
    ['agent', renderServiceAccount(input.agent)],
    ...renderNetworkPolicies(input.agent, network, input.owner).map((policy): [ApplyPhase, KubernetesObject] => ['agent', policy]),
    ['revision', renderManifestConfigMap(input.agent, input.manifest, input.owner)],
    ['revision', renderEnvironmentSecret(input.agent, input.manifest, input.environment, input.owner)],
    [
      'revision',
      renderGatewayDeployment({ agent: input.agent, manifest: input.manifest, environmentNames: Object.keys(input.environment), settings: input.gateway, owner: input.owner }),
    ],
    ['activation', renderService(input.agent, revision, { gatewayPort: input.gateway.gatewayPort ?? POD_GATEWAY_PORT }, input.owner)],
  ];
  return sequence.map(([phase, object], order) => ({ order, phase, object }));
}
