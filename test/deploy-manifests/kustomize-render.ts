import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

// A small Kustomize renderer for the tests of deploy/kubernetes: no kubectl is guaranteed on CI
// machines. It knows exactly the kustomization fields the manifests use — resources (files and
// folders), namespace, images, patches (strategic merge of maps) — and refuses any other, so the
// manifests cannot grow a feature these tests would silently misread. Where kubectl is present,
// kubernetes-manifests.test.ts checks that this renderer and `kubectl kustomize` agree.

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** Where each rendered object came from, for failure messages. */
export interface RenderedObject {
  object: KubeObject;
  file: string;
}

export const DEPLOY_ROOT = resolve(import.meta.dirname, '../../deploy/kubernetes');

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
/** Kinds that live outside any namespace: `namespace:` leaves them alone. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);

interface ImageRule {
  name: string;
  newName?: string;
  newTag?: string;
}

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: ImageRule[];
  patches?: { path: string }[];
}

/** Every YAML document of one file, as plain data; a parse error fails the caller. */
export function readYamlDocuments(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${relative(DEPLOY_ROOT, file)}: ${doc.errors[0]!.message}`);
      return doc.toJS();
    })
    .filter((value) => value !== null && value !== undefined);
}

function readKustomization(dir: string): Kustomization {
  const [doc] = readYamlDocuments(join(dir, 'kustomization.yaml')) as Kustomization[];
  if (!doc) throw new Error(`${relative(DEPLOY_ROOT, dir)}/kustomization.yaml is empty`);
  const unknown = Object.keys(doc).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new Error(`${relative(DEPLOY_ROOT, dir)}/kustomization.yaml uses ${unknown.join(', ')}, which this test renderer does not implement`);
  return doc;
}

/** Renders the kustomization in `dir` as `kubectl kustomize dir` would (for the fields above). */
export function renderKustomization(dir: string): RenderedObject[] {
  const kustomization = readKustomization(dir);
  let objects: RenderedObject[] = [];
  for (const entry of kustomization.resources ?? []) {
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new Error(`${relative(DEPLOY_ROOT, dir)}: resource ${entry} does not exist`);
    objects.push(...(statSync(path).isDirectory() ? renderKustomization(path) : readObjects(path)));
  }
  for (const patch of kustomization.patches ?? []) objects = applyPatch(objects, resolve(dir, patch.path));
  for (const { object } of objects) {
    if (kustomization.namespace && !CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = kustomization.namespace;
    for (const rule of kustomization.images ?? []) setImages(object, rule);
  }
  return objects;
}

function readObjects(file: string): RenderedObject[] {
  return readYamlDocuments(file).map((object) => ({ object: object as KubeObject, file: relative(DEPLOY_ROOT, file) }));
}

/** A strategic-merge patch limited to maps: a list in a patch would need Kustomize's merge keys. */
function applyPatch(objects: RenderedObject[], file: string): RenderedObject[] {
  const patches = readYamlDocuments(file) as KubeObject[];
  for (const patch of patches) {
    const target = objects.find(({ object }) => object.kind === patch.kind && object.metadata.name === patch.metadata.name);
    if (!target) throw new Error(`${relative(DEPLOY_ROOT, file)}: no ${patch.kind} ${patch.metadata.name} to patch`);
    target.object = mergeMaps(target.object, patch, relative(DEPLOY_ROOT, file)) as KubeObject;
  }
  return objects;
}

function mergeMaps(base: unknown, patch: unknown, where: string): unknown {
  if (Array.isArray(patch)) throw new Error(`${where}: patches with lists are not implemented by this test renderer`);
  if (!isMap(patch) || !isMap(base)) return patch;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) merged[key] = key in base ? mergeMaps(base[key], value, where) : value;
  return merged;
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Kustomize's image rule: containers whose image is `name`, `name:tag` or `name@digest`. */
function setImages(object: KubeObject, rule: ImageRule): void {
  const spec = (object.spec as { template?: { spec?: { containers?: { image: string }[]; initContainers?: { image: string }[] } } } | undefined)?.template?.spec;
  for (const container of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
    const { name, tag, digest } = splitImage(container.image);
    if (name !== rule.name) continue;
    container.image = `${rule.newName ?? name}${rule.newTag ? `:${rule.newTag}` : (tag ?? '')}${digest ?? ''}`;
  }
}

/** `registry:5000/repo/name:tag@sha256:…` → name `registry:5000/repo/name`, tag `:tag`, digest `@sha256:…`. */
export function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  const digest = at >= 0 ? image.slice(at) : undefined;
  const rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) return { name: rest.slice(0, colon), tag: rest.slice(colon), ...(digest ? { digest } : {}) };
  return { name: rest, ...(digest ? { digest } : {}) };
}

/** Every kustomization folder under the deploy root (each one is rendered and validated). */
export function kustomizationDirs(root = DEPLOY_ROOT): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    if (existsSync(join(dir, 'kustomization.yaml'))) found.push(dir);
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(join(dir, entry.name));
  };
  walk(root);
  return found.sort();
}

/** Every YAML file under the deploy root. */
export function yamlFiles(root = DEPLOY_ROOT): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.ya?ml$/.test(path))
    .map((path) => join(root, path))
    .sort();
}

export const relativeToDeploy = (path: string) => relative(DEPLOY_ROOT, path) || '.';
