import { badRequest, unsupportedMediaType } from './status.ts';

/**
 * Applies a PATCH body. Strategic merge patch is treated as a JSON merge patch: the same for the
 * fields a driver patches (maps, scalars, whole lists) — the fake does not merge lists by key and
 * ignores `$patch` directives.
 */
export function applyPatch(target: unknown, patch: unknown, contentType: string): unknown {
  const type = contentType.split(';')[0]!.trim();
  switch (type) {
    case 'application/merge-patch+json':
    case 'application/strategic-merge-patch+json':
      return mergePatch(target, patch);
    case 'application/json-patch+json':
      if (!Array.isArray(patch)) throw badRequest('the JSON patch must be an array of operations');
      return jsonPatch(target, patch);
    default:
      throw unsupportedMediaType(type);
  }
}

/** RFC 7386: null deletes, objects merge recursively, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** RFC 6902: add, remove, replace, move, copy, test. */
function jsonPatch(target: unknown, operations: any[]): unknown {
  let document = structuredClone(target);
  for (const op of operations) {
    const path = parsePointer(op.path);
    switch (op.op) {
      case 'add':
        document = add(document, path, structuredClone(op.value));
        break;
      case 'remove':
        document = remove(document, path);
        break;
      case 'replace':
        document = add(remove(document, path), path, structuredClone(op.value));
        break;
      case 'move': {
        const from = parsePointer(op.from);
        const value = get(document, from);
        document = add(remove(document, from), path, value);
        break;
      }
      case 'copy':
        document = add(document, path, structuredClone(get(document, parsePointer(op.from))));
        break;
      case 'test':
        if (JSON.stringify(get(document, path)) !== JSON.stringify(op.value)) throw new JsonPatchTestFailed(op.path);
        break;
      default:
        throw badRequest(`Unexpected kind: ${op.op}`);
    }
  }
  return document;
}

/** A failed `test` operation: the real server answers 422 Invalid. */
export class JsonPatchTestFailed extends Error {
  constructor(readonly path: string) {
    super(`testing value ${path} failed`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/'))) throw badRequest(`invalid JSON pointer ${String(pointer)}`);
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(document: any, path: string[]): unknown {
  let node = document;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !(key in node)) throw badRequest(`the path /${path.join('/')} does not exist`);
    node = node[key];
  }
  return node;
}

function parentOf(document: any, path: string[]): { parent: any; key: string } {
  const parent = get(document, path.slice(0, -1));
  if (parent === null || typeof parent !== 'object') throw badRequest(`the parent of /${path.join('/')} is not a container`);
  return { parent, key: path[path.length - 1]! };
}

function add(document: any, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const { parent, key } = parentOf(document, path);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw badRequest(`index ${key} out of bounds`);
    parent.splice(index, 0, value);
  } else parent[key] = value;
  return document;
}

function remove(document: any, path: string[]): unknown {
  if (path.length === 0) return undefined;
  const { parent, key } = parentOf(document, path);
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= parent.length) throw badRequest(`index ${key} out of bounds`);
    parent.splice(index, 1);
  } else {
    if (!(key in parent)) throw badRequest(`the path /${path.join('/')} does not exist`);
    delete parent[key];
  }
  return document;
}
