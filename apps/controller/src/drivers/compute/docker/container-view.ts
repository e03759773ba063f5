import type { ContainerInspectInfo } from 'dockerode';
import { CODEX_PAT_ENVIRONMENT } from '@occ/contracts';
import { CONTAINER_PATHS } from '../runtime-contract/container-paths.ts';
import { LABELS } from './container-spec.ts';

/**
 * What the driver knows of one container, from `docker inspect` alone: the engine is the only
 * place a container's tokens live (its environment), so any OCC process — a restarted one, a
 * second replica — reads the same facts.
 */
export interface ContainerView {
  id: string;
  running: boolean;
  restarting: boolean;
  /** Restarts the engine made after exits (a crash, an engine restart). */
  restartCount: number;
  /** The current start (RFC 3339): the runtime's announcements before it belong to earlier starts. */
  startedAt: string;
  namespaceId: string;
  agentId: string;
  revisionId: string;
  deliveredSecrets: string[];
  tokens: { status: string; gateway: string };
  /** Tokens and delivered values, for redacting the log (never returned, never logged). */
  secretValues: string[];
  /** The manifest the container was created with (inline, non-secret). */
  manifestJson: string;
  /** `app-server`: a Codex revision's app-server container (codex-app-server.ts); `runtime`: the revision's runtime (gateway) container. */
  role: 'runtime' | 'app-server';
  /** The network it joins: the Agent's own, or `host` for a container an OCC before per-Agent networks made. */
  networkMode: string;
  /** Container port → the host port published for it on 127.0.0.1, for the current start (the engine picks anew at each start). */
  published: ReadonlyMap<number, number>;
  /** Prepared beside the serving container: the host directory its go is written to (proceed-marker.ts); null for every other container. */
  proceedDir: string | null;
}

export function containerState(info: ContainerInspectInfo): ContainerView {
  const labels = info.Config.Labels ?? {};
  const env = new Map<string, string>();
  for (const entry of info.Config.Env ?? []) {
    const at = entry.indexOf('=');
    if (at > 0) env.set(entry.slice(0, at), entry.slice(at + 1));
  }
  const delivered = (labels[LABELS.deliveredSecrets] ?? '').split(',').filter((name) => name !== '');
  const secretNames = ['OCC_RUNTIME_STATUS_TOKEN', 'OCC_RUNTIME_GATEWAY_TOKEN', 'OCC_RUNTIME_TRANSPORT_SECRET', CODEX_PAT_ENVIRONMENT, ...delivered];
  return {
    id: info.Id,
    running: info.State.Running === true && info.State.Restarting !== true,
    restarting: info.State.Restarting === true,
    restartCount: info.RestartCount ?? 0,
    startedAt: info.State.StartedAt,
    namespaceId: labels[LABELS.namespaceId] ?? '',
    agentId: labels[LABELS.agentId] ?? '',
    revisionId: labels[LABELS.revisionId] ?? '',
    deliveredSecrets: delivered,
    tokens: { status: env.get('OCC_RUNTIME_STATUS_TOKEN') ?? '', gateway: env.get('OCC_RUNTIME_GATEWAY_TOKEN') ?? '' },
    secretValues: secretNames.map((name) => env.get(name)).filter((value): value is string => value !== undefined && value !== ''),
    manifestJson: env.get('OCC_RUNTIME_MANIFEST_JSON') ?? '{}',
    role: labels[LABELS.role] === 'app-server' ? 'app-server' : 'runtime',
    networkMode: info.HostConfig.NetworkMode ?? '',
    published: publishedOnLoopback(info),
    proceedDir: env.get('OCC_RUNTIME_HOLD_BEFORE_GATEWAY') === '1' ? boundFrom(info, CONTAINER_PATHS.proceed) : null,
  };
}

/** The host path bound at `target` (`HostConfig.Binds`: `source:target[:options]`), or null. */
function boundFrom(info: ContainerInspectInfo, target: string): string | null {
  for (const bind of info.HostConfig.Binds ?? []) {
    const [source, at] = bind.split(':');
    if (at === target && source) return source;
  }
  return null;
}

/** `NetworkSettings.Ports` (`"18790/tcp": [{ HostIp, HostPort }]`), loopback bindings only: nothing else is ever read. */
function publishedOnLoopback(info: ContainerInspectInfo): Map<number, number> {
  const published = new Map<number, number>();
  for (const [key, bindings] of Object.entries(info.NetworkSettings?.Ports ?? {})) {
    const binding = (bindings ?? []).find((b) => b.HostIp === '127.0.0.1');
    const [port, protocol] = key.split('/');
    const hostPort = Number(binding?.HostPort);
    if (protocol === 'tcp' && Number.isInteger(hostPort) && hostPort > 0) published.set(Number(port), hostPort);
  }
  return published;
}

/** The revision's selection keys and the enabled ones, from the manifest in the container's environment. */
export function revisionOf(view: ContainerView): { selections: ReadonlySet<string>; enabled: ReadonlySet<string> } {
  let selections: Record<string, { enabled?: unknown }> = {};
  try {
    const manifest = JSON.parse(view.manifestJson) as { plugins?: { selections?: Record<string, { enabled?: unknown }> } };
    selections = manifest.plugins?.selections ?? {};
  } catch {
    // A manifest that does not parse admits nothing: its status can never be judged ready.
  }
  const keys = Object.keys(selections);
  return { selections: new Set(keys), enabled: new Set(keys.filter((key) => selections[key]?.enabled === true)) };
}
