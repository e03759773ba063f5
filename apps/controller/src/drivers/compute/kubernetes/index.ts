import { TypeCompiler } from '@sinclair/typebox/compiler';
import { RuntimeManifestSchema, type AgentRevision, type RuntimeManifest } from '@occ/contracts';
import {
  ComputeValidationError,
  type AgentRef,
  type ComputeContext,
  type ComputeDriver,
  type PrepareResult,
  type RemovedResource,
  type RestoreCause,
  type RuntimeDescription,
  type RuntimeLogs,
} from '../../../core/ports/compute-driver.ts';
import type { RevisionRef, RuntimeStartAuthority } from '../../../core/ports/runtime-start.ts';
import { lastLines, tailLength } from '../runtime-contract/log-lines.ts';
import { failedPrepare, prepareResultOf } from '../runtime-contract/prepare-result.ts';
import { lineRedactor } from '../runtime-contract/redaction.ts';
import { restoreEvent } from '../runtime-contract/restore-event.ts';
import { checkManifestDescribes, validateRunnableRevision } from '../runtime-contract/runnable-revision.ts';
import { describeObserved, noRuntime } from '../runtime-contract/runtime-description.ts';
import { isRefusal, startAuthority, startFailureOf } from '../runtime-contract/start-refusal.ts';
import { StatusChanges } from '../runtime-contract/status-changes.ts';
import { KubernetesApi, KubernetesApiError, type LiveObject } from './api.ts';
import { applyObject } from './apply.ts';
import { removeAgentObjects } from './remove-agent.ts';
import { deliveredNames, redactedValues, revisionEnvironment, secretValues, tokensOf, type RuntimeSettings } from './environment.ts';
import {
  agentObjectNames,
  checkAgentIdentity,
  checkRevisionIdentity,
  KubernetesRenderError,
  LABEL_AGENT_ID,
  LABEL_COMPONENT,
  LABEL_REVISION_ID,
  MANIFEST_KEY,
  renderEnvironmentSecret,
  renderGatewayDeployment,
  renderManifestConfigMap,
  renderNetworkPolicies,
  renderService,
  renderServiceAccount,
  revisionObjectNames,
  type AgentIdentity,
  type KubernetesObject,
  type OwnerObject,
} from './render/index.ts';
import type { KubernetesComputeSettings } from './settings.ts';
import { findRevisionPod, lookAtRevision, readRevisionStatus, RUNTIME_CONTAINER, type PodLook, type RevisionExpectation } from './status.ts';
import { DEFAULT_READY_WAIT_MS, watchPrepare } from '../runtime-contract/prepare-watch.ts';

export interface KubernetesComputeOptions extends RuntimeSettings {
  settings: KubernetesComputeSettings;
  /** One status read through the pod proxy (default 5 s). */
  probeTimeoutMs?: number;
  /** How long one prepare call watches a starting gateway before answering "not ready yet" (default 2 s). */
  readyWaitMs?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

const POLL_MS = 250;
const MAX_LOG_LINE_CHARS = 8192;
const isManifest = TypeCompiler.Compile(RuntimeManifestSchema);

export function createKubernetesComputeDriver(options: KubernetesComputeOptions): KubernetesComputeDriver {
  return new KubernetesComputeDriver(options);
}

/**
 * The ComputeDriver port on Kubernetes (docs/compute-kubernetes.md): per Agent a ServiceAccount (the
 * owner of the rest), default-deny NetworkPolicies with exact allows, each revision's immutable
 * manifest ConfigMap and environment Secret, one gateway Deployment (1 replica, Recreate) and a
 * Service that selects the ACTIVE revision. Everything this driver knows it reads back from the
 * API server (OCC replicas share nothing else): which revision the Deployment runs (its pod
 * template's revision label), which one is active (the Service's selector), a revision's tokens
 * (its Secret).
 */
export class KubernetesComputeDriver implements ComputeDriver {
  readonly id = 'kubernetes';
  readonly api: KubernetesApi;
  private readonly namespace: string;
  private authority: RuntimeStartAuthority | null = null;
  /**
   * The status versions a prepare read, for the worker's wait on the next one (awaitStatusChange):
   * a long-poll through the pod proxy. Memory only, an optimization: without it (another OCC
   * replica read the status) the worker's convergence poll is the wait.
   */
  private readonly statusChanges: StatusChanges;

  constructor(private readonly options: KubernetesComputeOptions) {
    this.api = new KubernetesApi(options.settings.kubeConfig);
    this.namespace = options.settings.namespace;
    this.statusChanges = new StatusChanges(options.probeTimeoutMs ?? 5_000);
  }

  /** The rules every driver of OCC's runtime shares, plus the Agent's namespace id as a label value (render's identity check). */
  validateRevision(revision: AgentRevision): void {
    validateRunnableRevision(revision, this.id);
    try {
      checkAgentIdentity(this.identity(revision));
      checkRevisionIdentity({ revisionId: revision.id, revision: revision.revision });
    } catch {
      throw new ComputeValidationError('INVALID_REVISION', 'The revision ids are not well-formed.');
    }
  }

  /** Keeps `authority` for every start. Nothing to bring back: Kubernetes keeps the pods running without OCC. */
  start(authority: RuntimeStartAuthority): void {
    this.authority = authority;
  }

  async close(): Promise<void> {
    this.authority = null;
  }

  // ---- prepare -------------------------------------------------------------------------------

  async prepareRevision(revision: AgentRevision, manifest: RuntimeManifest, { signal }: ComputeContext): Promise<PrepareResult> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    checkManifestDescribes(revision, manifest);
    const agent = this.identity(revision);
    const names = agentObjectNames(agent.agentId);
    const deployment = await this.api.read('Deployment', this.namespace, names.deployment);
    if (templateRevision(deployment) !== revision.id || replicasOf(deployment) === 0) {
      const started = await this.startRevision(agent, manifest, signal);
      if (started) return started;
    }
    const result = await this.watch(agent, manifest, signal);
    // A failed candidate does not keep restarting; the worker brings the active revision back (restoreRevision).
    if (result.state === 'failed') await this.stopRevision(agent, revision.id, { signal });
    return result;
  }

  /**
   * One start of `manifest`'s revision, re-authorized: the Agent's objects in render order —
   * ServiceAccount, NetworkPolicies (before any gateway) [P-4][G-4], the revision's manifest
   * ConfigMap [P-2] and Secret (written inside the authority's answer: the values live in the
   * Secret and nowhere else), then the Deployment with this revision's template (Recreate: the
   * old pod is gone before the new one installs) [P-6]. A refusal or an object the API server
   * refuses (422) fails the prepare; a control plane or API server that did not answer throws.
   */
  private async startRevision(agent: AgentIdentity, manifest: RuntimeManifest, signal: AbortSignal): Promise<PrepareResult | null> {
    const authority = startAuthority(this.authority, this.id);
    try {
      const owner = await this.ensureOwner(agent, signal);
      const { statusPort, controller, agentEgress } = this.options.settings;
      for (const policy of renderNetworkPolicies(agent, { statusPort, controller, egressExcept: agentEgress.except, egressAllow: agentEgress.allow }, owner)) {
        await applyObject(this.api, policy, signal);
      }
      const ref: RevisionRef = { namespaceId: agent.namespaceId, agentId: agent.agentId, revisionId: manifest.revisionId };
      await authority.withStartEnvironment(ref, async (secrets) => {
        const configMap = renderManifestConfigMap(agent, manifest, owner);
        const secretName = revisionObjectNames(agent.agentId, manifest.revision).environment;
        const tokens = tokensOf(await this.api.read('Secret', this.namespace, secretName));
        const environment = revisionEnvironment(this.options, tokens, secrets);
        const secret = renderEnvironmentSecret(agent, manifest, environment, owner);
        const deployment = this.renderDeployment(agent, manifest, Object.keys(environment), owner);
        await this.applyImmutable(configMap, signal);
        await applyObject(this.api, secret, signal);
        await applyObject(this.api, deployment, signal);
      });
      this.options.log?.('compute.kubernetes.started', { agentId: agent.agentId, revisionId: manifest.revisionId });
      return null;
    } catch (error) {
      signal.throwIfAborted();
      if (isRefusal(error)) {
        const failure = startFailureOf(error);
        return failedPrepare(failure.code, failure.message);
      }
      // RUNTIME_MANIFEST_TOO_LARGE as such; any other input the renderer refuses is a request the cluster would refuse too.
      if (error instanceof KubernetesRenderError) return failedPrepare(error.code === 'RUNTIME_MANIFEST_TOO_LARGE' ? error.code : 'COMPUTE_REQUEST_REJECTED', error.message);
      if (error instanceof KubernetesApiError && (error.status === 422 || error.status === 400)) {
        this.options.log?.('compute.kubernetes.refused', { agentId: agent.agentId, revisionId: manifest.revisionId, error: error.message });
        return failedPrepare('COMPUTE_REQUEST_REJECTED', error.message);
      }
      throw error;
    }
  }

  private renderDeployment(agent: AgentIdentity, manifest: RuntimeManifest, environmentNames: string[], owner: OwnerObject): KubernetesObject {
    const { image, resources, statusPort, gatewayPort } = this.options.settings;
    return renderGatewayDeployment({ agent, manifest, environmentNames, settings: { image, resources, statusPort, gatewayPort }, owner });
  }

  /** The manifest ConfigMap is immutable and one per revision: created once, never replaced (the same revision renders the same data). */
  private async applyImmutable(object: KubernetesObject, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    try {
      await this.api.create('ConfigMap', this.namespace, object);
    } catch (error) {
      if (!(error instanceof KubernetesApiError && error.status === 409)) throw error;
    }
  }

  /** The Agent's ServiceAccount, created once: the owner of everything else of the Agent (render/owner.ts). */
  private async ensureOwner(agent: AgentIdentity, signal: AbortSignal): Promise<OwnerObject> {
    const account = renderServiceAccount(agent);
    signal.throwIfAborted();
    let live = await this.api.read('ServiceAccount', this.namespace, account.metadata.name);
    if (!live) {
      try {
        live = await this.api.create('ServiceAccount', this.namespace, account);
      } catch (error) {
        if (!(error instanceof KubernetesApiError && error.status === 409)) throw error;
        live = await this.api.read('ServiceAccount', this.namespace, account.metadata.name);
      }
    }
    if (!live?.metadata.uid) throw new Error("The Agent's ServiceAccount has no uid.");
    return { apiVersion: 'v1', kind: 'ServiceAccount', name: live.metadata.name, uid: live.metadata.uid };
  }

  /** One prepare's watch of the revision's pod (runtime-contract/prepare-watch.ts). */
  private async watch(agent: AgentIdentity, manifest: RuntimeManifest, signal: AbortSignal): Promise<PrepareResult> {
    const expected = await this.expectation(agent, manifest.revisionId, manifest.plugins?.selections ?? {});
    return watchPrepare(
      async () => {
        const look = await lookAtRevision(this.api, expected, signal, this.options.probeTimeoutMs ?? 5_000);
        const result = judgeLook(look);
        // Only a revision still converging is waited on: the memory never outgrows the deploys in flight.
        this.recordStatusVersion(expected, result.state === 'pending' ? look : null);
        return result;
      },
      { waitMs: this.options.readyWaitMs ?? DEFAULT_READY_WAIT_MS, pollMs: POLL_MS, signal },
    );
  }

  /** The runtime's status version in the pod a look found; a later long-poll goes to that pod (a new pod ends it: the old one's connection closes). */
  private recordStatusVersion(expected: RevisionExpectation, look: PodLook | null): void {
    const key = `${expected.agentId}/${expected.revisionId}`;
    if (look?.kind !== 'observed' || look.statusVersion === undefined) return this.statusChanges.forget(key);
    const timeoutMs = this.options.probeTimeoutMs ?? 5_000;
    this.statusChanges.recordRead(key, { body: null, version: look.statusVersion }, (longPoll, signal) =>
      readRevisionStatus(this.api, expected, look.pod, longPoll, signal, timeoutMs),
    );
  }

  awaitStatusChange(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    return this.statusChanges.awaitChange(`${agent.agentId}/${revisionId}`, signal);
  }

  /** What a status of `revisionId` must match: its token (from its Secret) and its admitted selections. */
  private async expectation(agent: AgentIdentity, revisionId: string, selections: Record<string, { enabled: boolean }>): Promise<RevisionExpectation> {
    const secret = await this.revisionObject('Secret', agent.agentId, revisionId);
    const keys = Object.keys(selections);
    return {
      kubernetesNamespace: this.namespace,
      agentId: agent.agentId,
      revisionId,
      deploymentName: agentObjectNames(agent.agentId).deployment,
      statusPort: this.options.settings.statusPort,
      statusToken: secretValues(secret).OCC_RUNTIME_STATUS_TOKEN ?? '',
      selections: new Set(keys),
      enabled: new Set(keys.filter((key) => selections[key]!.enabled === true)),
    };
  }

  /**
   * The pointer's revision's template again (the Deployment, re-authorized like every start), from
   * the manifest the worker passes (its ConfigMap is made if it is gone) — unless the gateway
   * Deployment runs a pod of any revision: the cluster keeps pods running while OCC restarts, and
   * a candidate in flight is its worker's (Recreate).
   */
  async restoreRevision(revision: AgentRevision, manifest: RuntimeManifest, cause: RestoreCause, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    checkManifestDescribes(revision, manifest);
    const agent = this.identity(revision);
    const deployment = await this.api.read('Deployment', this.namespace, agentObjectNames(agent.agentId).deployment);
    if (deployment && replicasOf(deployment) !== 0) return;
    const restored = await this.startRevision(agent, manifest, signal);
    const [event, fields] = restoreEvent('kubernetes', revision, cause);
    this.options.log?.(event, { ...fields, refused: restored?.state === 'failed' });
  }

  // ---- activation, stop, retire --------------------------------------------------------------

  /** The Service selects this revision's pod, and only now [G-4][G-5]: until then clients reach the previous revision. */
  async activateRevision(revision: AgentRevision, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    this.validateRevision(revision);
    const agent = this.identity(revision);
    const names = agentObjectNames(agent.agentId);
    const deployment = await this.api.read('Deployment', this.namespace, names.deployment);
    if (templateRevision(deployment) !== revision.id) throw new Error('The revision was not prepared: the gateway Deployment runs another revision.');
    const owner = await this.ensureOwner(agent, signal);
    const service = renderService(agent, { revisionId: revision.id, revision: revision.revision }, { gatewayPort: this.options.settings.gatewayPort }, owner);
    const live = await this.api.read('Service', this.namespace, names.service);
    if (!live) await applyObject(this.api, service, signal);
    // Only the selector and labels change: the Service's cluster IP and everything else stay.
    else
      await this.api.mergePatch('Service', this.namespace, names.service, {
        metadata: { labels: service.metadata.labels },
        spec: { selector: (service.spec as { selector: unknown }).selector },
      });
  }

  async stopRevision(agent: AgentRef, revisionId: string, { signal }: ComputeContext): Promise<void> {
    signal.throwIfAborted();
    const names = agentObjectNames(this.identity(agent).agentId);
    const deployment = await this.api.read('Deployment', this.namespace, names.deployment);
    if (templateRevision(deployment) === revisionId && replicasOf(deployment) !== 0)
      await this.api.mergePatch('Deployment', this.namespace, names.deployment, { spec: { replicas: 0 } });
  }

  /**
   * The revision's ConfigMap and Secret go. One the Deployment still runs (a candidate a deploy gave
   * up: the worker never retires the pointer's revision) is scaled to zero instead, and its objects
   * stay while its template references them: the next retirement, once the template moved on,
   * removes them.
   */
  async retireRevision(agent: AgentRef, revisionId: string, ctx: ComputeContext): Promise<void> {
    ctx.signal.throwIfAborted();
    const names = agentObjectNames(this.identity(agent).agentId);
    const deployment = await this.api.read('Deployment', this.namespace, names.deployment);
    if (templateRevision(deployment) === revisionId) return this.stopRevision(agent, revisionId, ctx);
    for (const kind of ['ConfigMap', 'Secret'] as const) {
      const object = await this.revisionObject(kind, agent.agentId, revisionId);
      if (object) await this.api.delete(kind, this.namespace, object.metadata.name);
    }
  }

  /** The deleted Agent's objects, every kind the driver creates (remove-agent.ts). */
  async removeAgent(agent: AgentRef, { signal }: ComputeContext): Promise<RemovedResource[]> {
    signal.throwIfAborted();
    return removeAgentObjects(this.api, this.namespace, this.identity(agent).agentId, signal);
  }

  // ---- live view -----------------------------------------------------------------------------

  async describeRuntime(agent: AgentRef, revisionId: string): Promise<RuntimeDescription> {
    const identity = this.identity(agent);
    const configMap = await this.revisionObject('ConfigMap', agent.agentId, revisionId);
    const text = (configMap?.data as Record<string, string> | undefined)?.[MANIFEST_KEY];
    const manifest: unknown = text ? JSON.parse(text) : null;
    const selections = isManifest.Check(manifest) ? manifest.plugins.selections : {};
    const expected = await this.expectation(identity, revisionId, selections);
    const look = await lookAtRevision(this.api, expected, AbortSignal.timeout(this.options.probeTimeoutMs ?? 5_000), this.options.probeTimeoutMs ?? 5_000);
    if (look.kind === 'absent' || look.kind === 'unschedulable') return noRuntime();
    if (look.kind === 'broken') return { ...noRuntime(), lastFailureCode: look.code };
    const seen = look.observation;
    const secret = await this.revisionObject('Secret', agent.agentId, revisionId);
    // The pod's Ready condition is the cluster's word that the gateway serves.
    return describeObserved(true, seen, look.podReady, {
      startupId: look.startupId,
      restarts: look.restarts,
      deliveredSecrets: deliveredNames(secretValues(secret)),
      lastFailureCode: seen.kind === 'failed' ? seen.code : null,
    });
  }

  /** The revision's gateway pod log (the current container start), bounded; tokens and delivered values redacted. */
  async readLogs(agent: AgentRef, revisionId: string, { tail }: { tail: number }): Promise<RuntimeLogs> {
    const identity = this.identity(agent);
    const wanted = tailLength(tail);
    const pod = await findRevisionPod(this.api, {
      kubernetesNamespace: this.namespace,
      agentId: identity.agentId,
      revisionId,
      deploymentName: agentObjectNames(identity.agentId).deployment,
    });
    if (!pod) return { lines: [], truncated: false };
    const redact = lineRedactor(redactedValues(secretValues(await this.revisionObject('Secret', agent.agentId, revisionId))));
    let text: string;
    try {
      text = await this.api.podLog(this.namespace, pod.metadata.name, { container: RUNTIME_CONTAINER, tailLines: wanted + 1 });
    } catch (error) {
      // A pod whose container never started has no log yet.
      if (error instanceof KubernetesApiError && error.status === 400) return { lines: [], truncated: false };
      throw error;
    }
    const last = lastLines(text, wanted, redact);
    let truncated = last.truncated;
    const lines = last.lines.map((line) => {
      if (line.length <= MAX_LOG_LINE_CHARS) return line;
      truncated = true;
      return line.slice(0, MAX_LOG_LINE_CHARS);
    });
    return { lines, truncated };
  }

  // ---- helpers -------------------------------------------------------------------------------

  private identity(agent: AgentRef): AgentIdentity {
    return { kubernetesNamespace: this.namespace, namespaceId: agent.namespaceId, agentId: agent.agentId };
  }

  /** A revision's ConfigMap or Secret, found by its labels (their names carry the revision number, which stop and retire are not given). */
  private async revisionObject(kind: 'ConfigMap' | 'Secret', agentId: string, revisionId: string): Promise<LiveObject | null> {
    const component = kind === 'ConfigMap' ? 'runtime-manifest' : 'runtime-environment';
    const found = await this.api.list(kind, this.namespace, `${LABEL_AGENT_ID}=${agentId},${LABEL_COMPONENT}=${component},${LABEL_REVISION_ID}=${revisionId}`);
    return found[0] ?? null;
  }
}

/** The revision the Deployment's pod template runs (null: no Deployment). */
function templateRevision(deployment: LiveObject | null): string | null {
  const template = (deployment?.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template;
  return template?.metadata?.labels?.[LABEL_REVISION_ID] ?? null;
}

const replicasOf = (deployment: LiveObject | null) => (deployment?.spec as { replicas?: number } | undefined)?.replicas ?? 1;

/** A look mapped onto the port: ready needs a trusted ready status of THIS start AND the pod's Ready condition. */
function judgeLook(look: PodLook): PrepareResult {
  // No pod yet: the runtime is starting as far as the prepare can tell.
  if (look.kind === 'absent') return prepareResultOf({ kind: 'starting' }, false);
  if (look.kind === 'unschedulable') return { state: 'pending', reason: 'REVISION_UNSCHEDULABLE' };
  if (look.kind === 'broken') return failedPrepare(look.code);
  return prepareResultOf(look.observation, look.podReady);
}
