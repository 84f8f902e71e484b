import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { CONFIG_VARIABLES } from '@switchboard/service-kit';
import { describe, expect, it } from 'vitest';
import { hasKubectl, kubectlKustomize, readKustomization, render } from './kustomize.js';
import type { Manifest } from './kustomize.js';

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(k8sDir, '..', '..');
const kustomizations = ['base', 'overlays/embedded', 'overlays/postgres'];

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Deployment, StatefulSet, ConfigMap, Service, PodDisruptionBudget, NetworkPolicy,
};

interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: { name: string; value?: string }[];
  securityContext?: { readOnlyRootFilesystem?: boolean };
  volumeMounts?: { mountPath: string }[];
  readinessProbe?: { httpGet?: { path: string }; timeoutSeconds?: number };
}

function containersOf(manifest: Manifest): Container[] {
  const spec = manifest['spec'] as { template?: { spec: { containers: never[] } } } | undefined;
  return spec?.template?.spec.containers ?? [];
}

/** Every file of the folder and its subfolders, but kustomization.yaml. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((file) => file !== 'kustomization.yaml');
}

describe.each(kustomizations)('Kubernetes manifests: %s', (kustomization) => {
  const dir = join(k8sDir, kustomization);
  const manifests = render(dir);

  it('uses every file of its folder (as a resource, a patch or a generated ConfigMap) and nothing else', () => {
    const k = readKustomization(dir);
    const named = [
      ...(k.resources ?? []).filter((r) => r.endsWith('.yaml')),
      ...(k.patches ?? []).flatMap((p) => ('path' in p ? [p.path] : [])),
      ...(k.configMapGenerator ?? []).flatMap((g) => g.files ?? []),
    ];
    expect(named.sort()).toEqual(filesOf(dir).sort());
    for (const other of (k.resources ?? []).filter((r) => !r.endsWith('.yaml'))) {
      expect(relative(k8sDir, join(dir, other)), 'only kustomizations of this folder are built on').toMatch(/^(base|overlays\/[\w-]+)$/);
    }
  });

  it('validates every resource against the Kubernetes schemas', () => {
    for (const manifest of manifests) {
      const Model = MODELS[manifest.kind];
      expect(Model, `no schema model for ${manifest.kind}`).toBeDefined();
      expect(() => new Model!(manifest as never).validate(), `${manifest.kind}/${manifest.metadata.name}`).not.toThrow();
    }
  });

  it('names each resource once', () => {
    const ids = manifests.map((m) => `${m.kind}/${m.metadata.name}`);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it.skipIf(!hasKubectl)('renders here as `kubectl kustomize` does (names of generated ConfigMaps without their hash)', () => {
    const generated = new Set(manifests.filter((m) => m.kind === 'ConfigMap').map((m) => m.metadata.name));
    const unhash = (text: string) => text.replace(/"([a-z0-9-]+)-[a-z0-9]{10}"/g, (whole, name: string) => (generated.has(name) ? `"${name}"` : whole));
    const byId = (list: Manifest[]) => Object.fromEntries(list.map((m) => [`${m.kind}/${m.metadata.name}`, m]));
    const kubectl = JSON.parse(unhash(JSON.stringify(kubectlKustomize(dir)))) as Manifest[];
    expect(byId(manifests)).toEqual(byId(kubectl));
  });

  it('starts only entry points that exist in the repository', () => {
    for (const container of manifests.flatMap(containersOf).filter((c) => c.image.startsWith('switchboard'))) {
      const entry = container.command?.[1];
      expect(entry, 'switchboard containers name their entry point').toMatch(/dist\/src\/[\w-]+\.js$/);
      expect(existsSync(join(repoRoot, entry!.replace('dist/src/', 'src/').replace(/\.js$/, '.ts'))), entry).toBe(true);
    }
  });

  it('sets only variables that Switchboard reads', () => {
    const names = manifests.flatMap((m) => [
      ...containersOf(m).flatMap((c) => (c.env ?? []).map((e) => e.name)),
      ...(m.kind === 'ConfigMap' ? Object.keys((m['data'] as Record<string, string>) ?? {}) : []),
    ]).filter((name) => name.startsWith('SWITCHBOARD_'));
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !CONFIG_VARIABLES.includes(name))).toEqual([]);
  });

  it('gives every read-only container a writable /tmp (Baileys encrypts media through the temp dir)', () => {
    for (const manifest of manifests) {
      for (const container of containersOf(manifest)) {
        if (!container.securityContext?.readOnlyRootFilesystem) continue;
        expect(container.volumeMounts?.map((m) => m.mountPath), `${manifest.metadata.name}/${container.name}`).toContain('/tmp');
      }
    }
  });

  it('waits longer for /readyz than its own 2 s deadline towards the services', () => {
    const probes = manifests.flatMap(containersOf).map((c) => c.readinessProbe);
    for (const probe of probes.filter((p) => p?.httpGet?.path === '/readyz')) {
      expect(probe?.timeoutSeconds ?? 1).toBeGreaterThanOrEqual(3);
    }
  });

  it('keeps secrets out of git: no Secret resources, secret values only by reference', () => {
    expect(manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
    const text = JSON.stringify(manifests);
    expect(text).not.toMatch(/sbk_[A-Za-z0-9_-]{20,}/);
    // A URL may carry a user, and a password only as a $(VARIABLE) filled from a Secret.
    expect(text.match(/[a-z]+:\/\/[^/"\s:@]+:[^/"\s@]+@/g)?.filter((url) => !/:\$\([A-Z_]+\)@$/.test(url)) ?? []).toEqual([]);
    expect(text).not.toMatch(/"(password|POSTGRES_PASSWORD|PGPASSWORD|NATS_PASSWORD)","value"/);
  });
});

describe('the distributed base', () => {
  const manifests = render(join(k8sDir, 'base'));
  const byName = (name: string) => manifests.find((m) => m.metadata.name === name);

  it('runs the gateway and the four services as their own workloads', () => {
    for (const name of ['gateway', 'quota', 'messaging', 'sessions', 'events']) {
      expect(byName(`switchboard-${name}`), name).toBeDefined();
    }
  });

  it('probes the gateway on /healthz and /readyz', () => {
    const gateway = byName('switchboard-gateway') as unknown as { spec: { template: { spec: { containers: { livenessProbe: { httpGet: { path: string } }; readinessProbe: { httpGet: { path: string } } }[] } } } };
    const [container] = gateway.spec.template.spec.containers;
    expect(container?.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container?.readinessProbe.httpGet.path).toBe('/readyz');
  });

  it('points every process at NATS, as its own user, and the services at the event store', () => {
    const config = byName('switchboard-config') as unknown as { data: Record<string, string> };
    expect(config.data['SWITCHBOARD_EVENTSTORE_URL']).toMatch(/^kurrentdb:\/\//);
    // Not shared: each workload connects with its own credentials (see nats-auth.spec.ts).
    expect(config.data['SWITCHBOARD_NATS_URL']).toBeUndefined();
    for (const name of ['gateway', 'quota', 'messaging', 'sessions', 'events']) {
      const env = containersOf(byName(`switchboard-${name}`)!)[0]!.env ?? [];
      expect(env.find((e) => e.name === 'SWITCHBOARD_NATS_URL')?.value, name).toBe(`nats://${name}:$(NATS_PASSWORD)@nats:4222`);
    }
  });
});
