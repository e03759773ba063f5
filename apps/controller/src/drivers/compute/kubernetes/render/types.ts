// Plain Kubernetes object shapes the renderers return: only the fields OCC sets, typed loosely
// enough to stay free of any client library (the driver sends them as JSON). Tests validate every
// rendered object against the Kubernetes OpenAPI schemas (`kubernetes-models`).

export type Labels = Record<string, string>;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace: string;
  labels: Labels;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/** Any rendered object: apiVersion, kind, metadata, and the rest as the kind defines it. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Why a render refused: a closed code and a sentence naming sizes or fields, never a value. */
export type RenderErrorCode = 'RUNTIME_MANIFEST_TOO_LARGE' | 'KUBERNETES_RENDER_INPUT_INVALID';

export class KubernetesRenderError extends Error {
  override readonly name = 'KubernetesRenderError';
  constructor(
    readonly code: RenderErrorCode,
    message: string,
  ) {
    super(message);
  }
}
