import { createHash } from 'node:crypto';
import { idPattern } from '@occ/contracts';
import { KubernetesRenderError, type Labels } from './types.ts';

/**
 * Names and labels of an Agent's Kubernetes objects.
 *
 * Names come from the Agent's id (never its display name, which a PATCH can change), so they are
 * stable per Agent; revision-scoped objects add the revision number (unique per Agent). Every
 * name is a DNS-1123 label that starts with a letter (so it is a valid DNS-1035 Service name too)
 * and is cut to its limit with a hash suffix of the full name, so two long names never collide.
 */

export const LABEL_AGENT_ID = 'occ.dev/agent-id';
const LABEL_NAMESPACE_ID = 'occ.dev/namespace-id';
export const LABEL_REVISION_ID = 'occ.dev/revision-id';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';

/** DNS-1123 label limit (names of Services, and of everything here for simplicity). */
const MAX_NAME_LENGTH = 63;
/**
 * A Deployment's name leaves room for the ReplicaSet suffix (`-<pod-template-hash>`, up to 11
 * characters) so the ReplicaSet's name, and the pods' hostnames derived from it, stay labels too.
 */
const MAX_DEPLOYMENT_NAME_LENGTH = 52;
const HASH_LENGTH = 10;

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const AGENT_ID = new RegExp(idPattern('agent'));
const NAMESPACE_ID = new RegExp(idPattern('namespace'));
const REVISION_ID = new RegExp(idPattern('agent_revision'));

export const isDnsLabel = (name: string, max = MAX_NAME_LENGTH) => name.length <= max && DNS_LABEL.test(name);

/**
 * `text` as a DNS-1123 label of at most `max` characters: lower case, anything else becomes `-`,
 * a letter first; longer than `max`, it is cut and ends in `-` plus the first 10 hex digits of
 * SHA-256 of the whole (uncut) name.
 */
export function dnsLabel(text: string, max = MAX_NAME_LENGTH): string {
  if (max < HASH_LENGTH + 3) throw new RangeError('A name limit this small leaves no room for a hash suffix.');
  let name = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(name)) name = `x-${name}`.replace(/-+$/, '');
  if (name.length <= max) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, HASH_LENGTH);
  return `${name.slice(0, max - HASH_LENGTH - 1).replace(/-+$/, '')}-${hash}`;
}

/** Who an Agent is, for Kubernetes: OCC's ids and the Kubernetes namespace its objects live in. */
export interface AgentIdentity {
  /** The Kubernetes namespace (a DNS-1123 label) the driver puts this Agent's objects in. */
  kubernetesNamespace: string;
  namespaceId: string;
  agentId: string;
}

export interface RevisionIdentity {
  revisionId: string;
  /** The revision's number (1, 2, … per Agent). */
  revision: number;
}

export function checkAgentIdentity(agent: AgentIdentity): void {
  if (!isDnsLabel(agent.kubernetesNamespace)) invalid('kubernetesNamespace must be a DNS-1123 label of at most 63 characters.');
  if (!NAMESPACE_ID.test(agent.namespaceId)) invalid('namespaceId is not a Namespace id.');
  if (!AGENT_ID.test(agent.agentId)) invalid('agentId is not an Agent id.');
}

export function checkRevisionIdentity(revision: RevisionIdentity): void {
  if (!REVISION_ID.test(revision.revisionId)) invalid('revisionId is not a revision id.');
  if (!Number.isSafeInteger(revision.revision) || revision.revision < 1) invalid('revision must be a positive integer.');
}

function invalid(message: string): never {
  throw new KubernetesRenderError('KUBERNETES_RENDER_INPUT_INVALID', message);
}

/** The prefix of every name of an Agent's objects: `occ-agt-<uuid>` (44 characters). */
const agentBase = (agentId: string) => `occ-${agentId.replace('_', '-')}`;

/** The names of the objects that belong to the Agent as a whole (one each per Agent). */
export function agentObjectNames(agentId: string) {
  const base = agentBase(agentId);
  return {
    /** The root every other object is owned by (see owner.ts). */
    serviceAccount: dnsLabel(base),
    deployment: dnsLabel(`${base}-gateway`, MAX_DEPLOYMENT_NAME_LENGTH),
    service: dnsLabel(base),
    networkPolicyDefaultDeny: dnsLabel(`${base}-default-deny`),
    networkPolicyEgress: dnsLabel(`${base}-allow-egress`),
    networkPolicyStatus: dnsLabel(`${base}-allow-status`),
  };
}

/** The names of one revision's objects. */
export function revisionObjectNames(agentId: string, revision: number) {
  const base = `${agentBase(agentId)}-r${revision}`;
  return { manifest: dnsLabel(`${base}-manifest`), environment: dnsLabel(`${base}-environment`) };
}

/** What selects every pod of an Agent, whatever its revision: the NetworkPolicies' podSelector. */
export const agentPodSelector = (agent: AgentIdentity): Labels => ({ [LABEL_AGENT_ID]: agent.agentId });

/** What selects the Agent's gateway pods (the Deployment's selector, immutable: no revision in it). */
export const gatewaySelector = (agent: AgentIdentity): Labels => ({ [LABEL_AGENT_ID]: agent.agentId, [LABEL_COMPONENT]: 'gateway' });

/** The labels of one object of an Agent (plus the revision's id on revision-scoped objects and pods). */
export function objectLabels(agent: AgentIdentity, component: string, revision?: RevisionIdentity): Labels {
  return {
    'app.kubernetes.io/name': 'occ-agent-runtime',
    'app.kubernetes.io/instance': agentObjectNames(agent.agentId).serviceAccount,
    [LABEL_COMPONENT]: component,
    'app.kubernetes.io/part-of': 'occ',
    'app.kubernetes.io/managed-by': 'occ-controller',
    [LABEL_NAMESPACE_ID]: agent.namespaceId,
    [LABEL_AGENT_ID]: agent.agentId,
    ...(revision ? { [LABEL_REVISION_ID]: revision.revisionId } : {}),
  };
}
