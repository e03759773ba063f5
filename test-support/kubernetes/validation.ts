import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { ResourceType } from './resources.ts';
import { labelSelectorMatcher } from './selectors.ts';
import { invalid, type StatusCause } from './status.ts';

const MODELS: Record<string, new (data: never) => { validate(): void }> = { ServiceAccount, ConfigMap, Secret, Service, Deployment, NetworkPolicy } as never;

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
const MAX_DATA_BYTES = 1024 * 1024;

const cause = (field: string, message: string, reason = 'FieldValueInvalid'): StatusCause => ({ reason, message, field });

/**
 * Validates an object about to be stored: its kind's OpenAPI schema (`kubernetes-models`), then
 * the server-side rules a driver can trip — DNS names, label syntax, data keys and sizes,
 * immutable ConfigMaps/Secrets and a Deployment's immutable selector. Throws a 422 Status.
 */
export function validateObject(type: ResourceType, object: any, previous?: any): void {
  const name: string = object.metadata?.name ?? '';
  const causes: StatusCause[] = [...schemaCauses(type, object), ...nameCauses(type, name), ...metadataCauses(object.metadata)];
  if (type.kind === 'ConfigMap' || type.kind === 'Secret') causes.push(...dataCauses(object, previous));
  if (type.kind === 'Deployment') causes.push(...deploymentCauses(object, previous));
  if (causes.length) throw invalid(type, name, causes);
}

function schemaCauses(type: ResourceType, object: any): StatusCause[] {
  const Model = MODELS[type.kind];
  if (!Model) return [];
  try {
    new Model(structuredClone(object) as never).validate();
    return [];
  } catch (error) {
    const errors: Array<{ instancePath?: string; message?: string }> = (error as { errors?: [] }).errors ?? [];
    if (!errors.length) return [cause('', String((error as Error).message))];
    return errors.map((e) => cause((e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.'), `Invalid value: ${e.message ?? 'invalid'}`));
  }
}

function nameCauses(type: ResourceType, name: string): StatusCause[] {
  if (!name) return [cause('metadata.name', 'Required value: name or generateName is required', 'FieldValueRequired')];
  if (type.kind === 'Service') {
    if (name.length > 63 || !DNS1035_LABEL.test(name))
      return [
        cause(
          'metadata.name',
          `Invalid value: "${name}": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
        ),
      ];
    return [];
  }
  if (type.kind === 'Namespace' && (name.length > 63 || !DNS1123_LABEL.test(name)))
    return [
      cause(
        'metadata.name',
        `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
      ),
    ];
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name))
    return [
      cause(
        'metadata.name',
        `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ),
    ];
  return [];
}

function labelCauses(field: string, labels: Record<string, string> | undefined, checkValues: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    const slash = key.lastIndexOf('/');
    const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
    const local = slash >= 0 ? key.slice(slash + 1) : key;
    if ((prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) || local.length > 63 || !LABEL_NAME.test(local))
      causes.push(
        cause(field, `Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`),
      );
    if (checkValues && typeof value === 'string' && value !== '' && (value.length > 63 || !LABEL_NAME.test(value)))
      causes.push(
        cause(
          field,
          `Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
        ),
      );
  }
  return causes;
}

function metadataCauses(metadata: any): StatusCause[] {
  const causes = [...labelCauses('metadata.labels', metadata?.labels, true), ...labelCauses('metadata.annotations', metadata?.annotations, false)];
  const annotationBytes = Object.entries<string>(metadata?.annotations ?? {}).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(String(v)), 0);
  if (annotationBytes > 256 * 1024) causes.push(cause('metadata.annotations', 'Too long: must have at most 262144 bytes', 'FieldValueTooLong'));
  return causes;
}

function dataCauses(object: any, previous: any): StatusCause[] {
  const causes: StatusCause[] = [];
  let bytes = 0;
  for (const field of ['data', 'binaryData']) {
    for (const [key, value] of Object.entries<string>(object[field] ?? {})) {
      if (!DATA_KEY.test(key) || key.length > 253)
        causes.push(cause(`${field}[${key}]`, `Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`));
      if (typeof value !== 'string') continue; // the schema check reports it
      bytes += key.length + (object.kind === 'Secret' || field === 'binaryData' ? Buffer.from(value, 'base64').length : Buffer.byteLength(value));
    }
  }
  if (bytes > MAX_DATA_BYTES) causes.push(cause('data', `Too long: must have at most ${MAX_DATA_BYTES} bytes`, 'FieldValueTooLong'));
  if (previous?.immutable === true) {
    if (JSON.stringify(object.data ?? {}) !== JSON.stringify(previous.data ?? {}) || JSON.stringify(object.binaryData ?? {}) !== JSON.stringify(previous.binaryData ?? {}))
      causes.push(cause('data', 'Forbidden: field is immutable when `immutable` is set', 'FieldValueForbidden'));
    if (object.immutable !== true) causes.push(cause('immutable', 'Forbidden: field is immutable when `immutable` is set', 'FieldValueForbidden'));
  }
  return causes;
}

function deploymentCauses(object: any, previous: any): StatusCause[] {
  const causes: StatusCause[] = [];
  const selector = object.spec?.selector;
  const templateLabels = object.spec?.template?.metadata?.labels;
  if (selector && !labelSelectorMatcher(selector)(templateLabels ?? {}))
    causes.push(cause('spec.template.metadata.labels', `Invalid value: ${JSON.stringify(templateLabels ?? {})}: \`selector\` does not match template \`labels\``));
  if (!selector?.matchLabels && !selector?.matchExpressions?.length) causes.push(cause('spec.selector', 'Invalid value: empty selector is invalid for deployment'));
  if (previous && JSON.stringify(previous.spec?.selector) !== JSON.stringify(selector))
    causes.push(cause('spec.selector', `Invalid value: ${JSON.stringify(selector)}: field is immutable`));
  const containers: any[] = object.spec?.template?.spec?.containers ?? [];
  for (const [index, container] of containers.entries()) {
    if (!container.image) causes.push(cause(`spec.template.spec.containers[${index}].image`, 'Required value', 'FieldValueRequired'));
    if (container.name && !DNS1123_LABEL.test(container.name))
      causes.push(
        cause(
          `spec.template.spec.containers[${index}].name`,
          `Invalid value: "${container.name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`,
        ),
      );
  }
  return causes;
}
