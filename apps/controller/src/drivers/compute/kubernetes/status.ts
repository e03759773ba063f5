import { longPollQuery, observeStatus, STATUS_VERSION_HEADER, statusReadOf, versioned, type Observation, type StatusLongPoll } from '../runtime-contract/startup-status.ts';
import type { KubernetesApi, LiveObject } from './api.ts';
import { LABEL_AGENT_ID, LABEL_COMPONENT, LABEL_REVISION_ID } from './render/index.ts';

/** The runtime's status server takes its token in this header through the pod proxy (the API server drops Authorization). */
const STATUS_TOKEN_HEADER = 'X-OCC-Status-Token';
export const RUNTIME_CONTAINER = 'runtime';
const MAX_STATUS_BYTES = 64 * 1024;
/** The startup.serving line comes first in a start's log; more than this before it means something else is wrong. */
const MAX_LOG_BYTES_FOR_SERVING = 1024 * 1024;

/** Waiting reasons that never fix themselves without a new revision or a new image. */
const IMAGE_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'RegistryUnavailable']);
const CONFIG_REASONS = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/** What one look at a revision's gateway pod found. */
export type PodLook =
  | { kind: 'absent' }
  /** The scheduler found no node for it (resources, quotas): it may fit later. */
  | { kind: 'unschedulable' }
  /** A closed code from the pod's waiting state: the image cannot be had, or its configuration cannot be made. */
  | { kind: 'broken'; code: 'RUNTIME_IMAGE_UNAVAILABLE' | 'COMPUTE_REQUEST_REJECTED' }
  | {
      kind: 'observed';
      pod: string;
      observation: Observation | { kind: 'starting' };
      podReady: boolean;
      restarts: number;
      startupId: string | null;
      /** The version of the status read (a long-poll waits on it), when the runtime named one. */
      statusVersion?: string;
    };

export interface RevisionExpectation {
  kubernetesNamespace: string;
  agentId: string;
  revisionId: string;
  deploymentName: string;
  statusPort: number;
  statusToken: string;
  selections: ReadonlySet<string>;
  enabled: ReadonlySet<string>;
}

/**
 * Looks at the revision's gateway pod now: which pod (labelled with the revision, owned by the
 * Agent's Deployment, not terminating), its CURRENT container start's startup id (from that
 * start's `startup.serving` log line: a restarted container has a new one, so nothing is kept
 * between looks), and its status through the pod proxy judged against that id [S-2].
 */
export async function lookAtRevision(api: KubernetesApi, expected: RevisionExpectation, signal: AbortSignal, timeoutMs: number): Promise<PodLook> {
  const pod = await findRevisionPod(api, expected);
  if (!pod) return { kind: 'absent' };
  const name = pod.metadata.name;
  if (conditionOf(pod, 'PodScheduled')?.status === 'False' && conditionOf(pod, 'PodScheduled')?.reason === 'Unschedulable') return { kind: 'unschedulable' };
  const container = containerStatus(pod);
  const waiting = (container?.state as { waiting?: { reason?: string } } | undefined)?.waiting?.reason;
  if (waiting && IMAGE_REASONS.has(waiting)) return { kind: 'broken', code: 'RUNTIME_IMAGE_UNAVAILABLE' };
  if (waiting && CONFIG_REASONS.has(waiting)) return { kind: 'broken', code: 'COMPUTE_REQUEST_REJECTED' };
  const restarts = typeof container?.restartCount === 'number' ? container.restartCount : 0;
  const podReady = isPodReady(pod);
  const running = Boolean((container?.state as { running?: unknown } | undefined)?.running);
  if (!running) return { kind: 'observed', pod: name, observation: { kind: 'starting' }, podReady, restarts, startupId: null };
  const startupId = await currentStartupId(api, expected.kubernetesNamespace, name).catch(() => null);
  if (startupId === null) return { kind: 'observed', pod: name, observation: { kind: 'starting' }, podReady, restarts, startupId };
  const answer = await readRevisionStatus(api, expected, name, null, signal, timeoutMs);
  signal.throwIfAborted();
  // The proxy answers 502/503 until the pod's port accepts connections: nothing serves there yet.
  const read = answer === 'unreachable' ? answer : versioned(statusReadOf(answer.status, answer.body), headerValue(answer.headers[STATUS_VERSION_HEADER]));
  const observation = observeStatus(read, {
    revisionId: expected.revisionId,
    startupId,
    selections: expected.selections,
    enabled: expected.enabled,
  });
  return { kind: 'observed', pod: name, observation, podReady, restarts, startupId, ...(typeof read === 'object' && read.version ? { statusVersion: read.version } : {}) };
}

/**
 * The runtime's status in `pod` through the pod proxy, with its token; as a long-poll when
 * `longPoll` names the version last read (held by the runtime until its status changes).
 */
export function readRevisionStatus(
  api: KubernetesApi,
  expected: Pick<RevisionExpectation, 'kubernetesNamespace' | 'statusPort' | 'statusToken'>,
  pod: string,
  longPoll: StatusLongPoll | null,
  signal: AbortSignal,
  timeoutMs: number,
) {
  const path = `startup-status${longPoll ? longPollQuery(longPoll) : ''}`;
  return api.podProxyGet(
    expected.kubernetesNamespace,
    pod,
    expected.statusPort,
    path,
    { [STATUS_TOKEN_HEADER]: expected.statusToken },
    {
      signal,
      timeoutMs: timeoutMs + (longPoll?.waitMs ?? 0),
      maxBytes: MAX_STATUS_BYTES,
    },
  );
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The revision's live gateway pod: labelled with it, owned by the Agent's Deployment (directly or through its ReplicaSet), not terminating. */
export async function findRevisionPod(
  api: KubernetesApi,
  expected: Pick<RevisionExpectation, 'kubernetesNamespace' | 'agentId' | 'revisionId' | 'deploymentName'>,
): Promise<LiveObject | null> {
  const selector = `${LABEL_AGENT_ID}=${expected.agentId},${LABEL_COMPONENT}=gateway,${LABEL_REVISION_ID}=${expected.revisionId}`;
  const pods = await api.list('Pod', expected.kubernetesNamespace, selector);
  const owned = (pod: LiveObject) =>
    (pod.metadata.ownerReferences ?? []).some(
      (ref) => (ref.kind === 'Deployment' && ref.name === expected.deploymentName) || (ref.kind === 'ReplicaSet' && ref.name.startsWith(`${expected.deploymentName}-`)),
    );
  const live = pods.filter((pod) => owned(pod) && !pod.metadata.deletionTimestamp);
  // Newest first: during a Recreate, at most one is live anyway.
  live.sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')));
  return live[0] ?? null;
}

/**
 * The startup id of the container's current start: its log (this start only) names it once, in
 * the `startup.serving` line, before any plugin runs — so the FIRST such line counts (a plugin
 * printing a look-alike later cannot pose as the runtime).
 */
async function currentStartupId(api: KubernetesApi, namespace: string, pod: string): Promise<string | null> {
  const log = await api.podLog(namespace, pod, { container: RUNTIME_CONTAINER, limitBytes: MAX_LOG_BYTES_FOR_SERVING });
  for (const line of log.split('\n')) {
    if (!line.includes('"startup.serving"')) continue;
    try {
      const event = JSON.parse(line) as { source?: unknown; event?: unknown; startupId?: unknown };
      if (event.source === 'occ-runtime' && event.event === 'startup.serving' && typeof event.startupId === 'string') return event.startupId;
    } catch {
      // Not the runtime's JSON line (a plugin's output that mentions it).
    }
  }
  return null;
}

function containerStatus(pod: LiveObject): Record<string, unknown> | undefined {
  const statuses = (pod.status as { containerStatuses?: Record<string, unknown>[] } | undefined)?.containerStatuses ?? [];
  return statuses.find((s) => s.name === RUNTIME_CONTAINER) ?? statuses[0];
}

function conditionOf(pod: LiveObject, type: string): { status?: string; reason?: string } | undefined {
  const conditions = (pod.status as { conditions?: { type?: string; status?: string; reason?: string }[] } | undefined)?.conditions ?? [];
  return conditions.find((c) => c.type === type);
}

const isPodReady = (pod: LiveObject) => conditionOf(pod, 'Ready')?.status === 'True';
