import { type ResourceType, qualifiedName } from './resources.ts';

/** A Kubernetes `Status` failure, shaped exactly as the real API server writes it. */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] },
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    const body: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason };
    if (this.details) body.details = this.details;
    body.code = this.code;
    return body;
  }
}

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

const group = (type: ResourceType) => (type.group ? { group: type.group } : {});

export const notFound = (type: ResourceType, name: string) =>
  new StatusError(404, 'NotFound', `${qualifiedName(type)} "${name}" not found`, { name, ...group(type), kind: type.resource });

export const alreadyExists = (type: ResourceType, name: string) =>
  new StatusError(409, 'AlreadyExists', `${qualifiedName(type)} "${name}" already exists`, { name, ...group(type), kind: type.resource });

export const conflict = (type: ResourceType, name: string) =>
  new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedName(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, ...group(type), kind: type.resource },
  );

/** 422: `Deployment.apps "x" is invalid: spec.selector: Invalid value: …: field is immutable`. */
export function invalid(type: ResourceType, name: string, causes: StatusCause[]): StatusError {
  const qualifiedKind = type.group ? `${type.kind}.${type.group}` : type.kind;
  const summary = causes.map((c) => `${c.field}: ${c.message}`);
  const message = `${qualifiedKind} "${name}" is invalid: ${summary.length === 1 ? summary[0] : `[${summary.join(', ')}]`}`;
  return new StatusError(422, 'Invalid', message, { name, ...group(type), kind: type.kind, causes });
}

export const badRequest = (message: string) => new StatusError(400, 'BadRequest', message);

export const unauthorized = () => new StatusError(401, 'Unauthorized', 'Unauthorized');

export const methodNotAllowed = () => new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');

export const pathNotFound = () => new StatusError(404, 'NotFound', 'the server could not find the requested resource');

export const unsupportedMediaType = (contentType: string) =>
  new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got ${contentType})`,
  );

export const serviceUnavailable = (message: string) => new StatusError(503, 'ServiceUnavailable', message);

/** 410 Gone, sent as a watch ERROR event when the requested resourceVersion is no longer kept. */
export const expired = (resourceVersion: string) => new StatusError(410, 'Expired', `too old resource version: ${resourceVersion}`);
