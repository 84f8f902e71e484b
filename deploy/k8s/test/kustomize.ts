import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/**
 * The part of kustomize these manifests use, so the tests read what `kubectl apply -k` applies
 * without a kubectl on the machine: resources (files and other kustomizations), labels, images,
 * configMapGenerator (without the name hash) and strategic-merge patches (`$patch: delete`, maps
 * merged, `null` removes a key, lists of containers, env, volumes and mounts merged by key).
 * `manifests.spec.ts` checks it against `kubectl kustomize` wherever kubectl is installed.
 */
export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: unknown };

interface Kustomization {
  resources?: string[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean }[];
  images?: { name: string; newName?: string; newTag?: string }[];
  configMapGenerator?: { name: string; files?: string[] }[];
  patches?: ({ path: string } | { patch: string })[];
}

type Json = Record<string, unknown>;

export function readYaml(file: string): unknown[] {
  return parseDocuments(readFileSync(file, 'utf8'), file);
}

function parseDocuments(text: string, source: string): unknown[] {
  return parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map(String).join('; ')}`);
    return doc.toJS() as unknown;
  }).filter((doc) => doc !== null);
}

export function readKustomization(dir: string): Kustomization {
  return parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
}

/** The resources `kubectl kustomize <dir>` prints, generated names without their hash. */
export function render(dir: string): Manifest[] {
  const k = readKustomization(dir);
  let manifests = (k.resources ?? []).flatMap((entry) =>
    entry.endsWith('.yaml') ? (readYaml(join(dir, entry)) as Manifest[]) : render(join(dir, entry)),
  );
  for (const generator of k.configMapGenerator ?? []) {
    const data = Object.fromEntries((generator.files ?? []).map((file) => [basename(file), readFileSync(join(dir, file), 'utf8')]));
    manifests.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data });
  }
  for (const patch of (k.patches ?? []).flatMap((p) => ('path' in p ? readYaml(join(dir, p.path)) : parseDocuments(p.patch, dir))) as Json[]) {
    manifests = applyPatch(manifests, patch);
  }
  for (const { pairs, includeSelectors } of k.labels ?? []) {
    if (includeSelectors) throw new Error('labels with includeSelectors are not rendered here');
    for (const m of manifests) m.metadata.labels = { ...m.metadata.labels, ...pairs };
  }
  for (const image of k.images ?? []) {
    for (const container of manifests.flatMap(containersOf)) {
      if (container['image'] === image.name) container['image'] = `${image.newName ?? image.name}${image.newTag ? `:${image.newTag}` : ''}`;
    }
  }
  return manifests;
}

function containersOf(m: Manifest): Json[] {
  return ((m['spec'] as { template?: { spec?: { containers?: Json[] } } } | undefined)?.template?.spec?.containers) ?? [];
}

function applyPatch(manifests: Manifest[], patch: Json): Manifest[] {
  const { kind, metadata } = patch as unknown as Manifest;
  const index = manifests.findIndex((m) => m.kind === kind && m.metadata.name === metadata.name);
  if (index < 0) throw new Error(`patch for ${kind}/${metadata.name}: no such resource`);
  if (patch['$patch'] === 'delete') return manifests.filter((_, i) => i !== index);
  return manifests.map((m, i) => (i === index ? (merge(m, patch) as Manifest) : m));
}

/** Lists merged item by item on these keys (the Kubernetes patchMergeKeys the manifests touch). */
const MERGE_KEYS: Record<string, string> = { containers: 'name', initContainers: 'name', env: 'name', volumes: 'name', volumeMounts: 'mountPath' };

function merge(target: unknown, patch: unknown, field = ''): unknown {
  if (Array.isArray(patch) && Array.isArray(target) && MERGE_KEYS[field]) {
    const key = MERGE_KEYS[field]!;
    const keyOf = (item: unknown) => (item as Json)[key];
    // As kustomize does: items new to the list come first, then the existing ones (patched).
    const added = patch.filter((p) => !target.some((t) => keyOf(t) === keyOf(p)));
    const kept = target.map((t) => {
      const p = patch.find((item) => keyOf(item) === keyOf(t));
      return p === undefined ? t : merge(t, p);
    });
    return [...added, ...kept];
  }
  if (!isObject(patch) || !isObject(target)) return patch;
  const merged: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = key in target ? merge(target[key], value, key) : value;
  }
  return merged;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `kubectl kustomize <dir>`, or undefined without a kubectl (never downloads anything). */
export function kubectlKustomize(dir: string): Manifest[] | undefined {
  let output: string;
  try {
    output = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseDocuments(output, `kubectl kustomize ${dir}`) as Manifest[];
}

export const hasKubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
})();
