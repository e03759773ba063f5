import { resourceFor } from './resources.ts';
import type { ObjectStore } from './store.ts';

/** A reason the container cannot start yet, as the kubelet reports it in a waiting state. */
export class ContainerWaiting extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const configMaps = resourceFor('ConfigMap');
const secrets = resourceFor('Secret');

/** The value of a `fieldRef` (downward API) for this pod. */
export function fieldValue(pod: any, fieldPath: string): string {
  const annotated = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (annotated) return pod.metadata[annotated[1]!]?.[annotated[2]!] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace;
    case 'metadata.uid':
      return pod.metadata.uid;
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? 'default';
    case 'status.podIP':
      return pod.status?.podIP ?? '';
    case 'status.hostIP':
      return pod.status?.hostIP ?? '';
    default:
      throw new ContainerWaiting('CreateContainerConfigError', `unsupported fieldPath: ${fieldPath}`);
  }
}

/** One key of a ConfigMap or Secret, decoded; `undefined` when optional and absent. */
function referencedValue(store: ObjectStore, namespace: string, ref: { name: string; key: string; optional?: boolean }, kind: 'ConfigMap' | 'Secret'): string | undefined {
  const object = store.get(kind === 'Secret' ? secrets : configMaps, namespace, ref.name);
  if (!object) {
    if (ref.optional) return undefined;
    throw new ContainerWaiting('CreateContainerConfigError', `${kind === 'Secret' ? 'secret' : 'configmap'} "${ref.name}" not found`);
  }
  const value = kind === 'Secret' ? object.data?.[ref.key] : (object.data?.[ref.key] ?? object.binaryData?.[ref.key]);
  if (value === undefined) {
    if (ref.optional) return undefined;
    throw new ContainerWaiting('CreateContainerConfigError', `couldn't find key ${ref.key} in ${kind} ${namespace}/${ref.name}`);
  }
  return kind === 'Secret' ? Buffer.from(value, 'base64').toString('utf8') : value;
}

/**
 * The container's environment as the kubelet builds it: envFrom, then env in order (value with
 * `$(VAR)` expansion, secretKeyRef, configMapKeyRef, fieldRef). A missing required reference
 * throws CreateContainerConfigError.
 */
export function resolveEnvironment(store: ObjectStore, pod: any, container: any): Record<string, string> {
  const namespace: string = pod.metadata.namespace;
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const ref = source.secretRef ?? source.configMapRef;
    const kind = source.secretRef ? 'Secret' : 'ConfigMap';
    const object = store.get(kind === 'Secret' ? secrets : configMaps, namespace, ref.name);
    if (!object) {
      if (ref.optional) continue;
      throw new ContainerWaiting('CreateContainerConfigError', `${kind === 'Secret' ? 'secret' : 'configmap'} "${ref.name}" not found`);
    }
    for (const [key, value] of Object.entries<string>(object.data ?? {}))
      env[`${source.prefix ?? ''}${key}`] = kind === 'Secret' ? Buffer.from(value, 'base64').toString('utf8') : value;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    let value: string | undefined;
    if (!from) value = expand(variable.value ?? '', env);
    else if (from.secretKeyRef) value = referencedValue(store, namespace, from.secretKeyRef, 'Secret');
    else if (from.configMapKeyRef) value = referencedValue(store, namespace, from.configMapKeyRef, 'ConfigMap');
    else if (from.fieldRef) value = fieldValue(pod, from.fieldRef.fieldPath);
    else throw new ContainerWaiting('CreateContainerConfigError', `unsupported valueFrom for ${variable.name}`);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

/** `$(NAME)` → an earlier variable's value; `$$(NAME)` → the literal `$(NAME)`; unknown names stay. */
function expand(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name?: string) => (match === '$$' ? '$' : (env[name!] ?? match)));
}
