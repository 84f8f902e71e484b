import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { CONFIG_VARIABLES } from '@switchboard/service-kit';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(k8sDir, '..', '..');
const kustomizations = ['base', 'overlays/embedded'];

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Deployment, StatefulSet, ConfigMap, Service, PodDisruptionBudget,
};

function manifestsOf(kustomization: string): Manifest[] {
  const dir = join(k8sDir, kustomization);
  const { resources } = readYaml(join(dir, 'kustomization.yaml'))[0] as { resources: string[] };
  return resources.flatMap((file) => readYaml(join(dir, file)) as Manifest[]);
}

function readYaml(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map(String).join('; ')}`);
    return doc.toJS() as unknown;
  });
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: { name: string }[];
  securityContext?: { readOnlyRootFilesystem?: boolean };
  volumeMounts?: { mountPath: string }[];
  readinessProbe?: { httpGet?: { path: string }; timeoutSeconds?: number };
}

function containersOf(manifest: Manifest): Container[] {
  const spec = manifest['spec'] as { template?: { spec: { containers: never[] } } } | undefined;
  return spec?.template?.spec.containers ?? [];
}

describe.each(kustomizations)('Kubernetes manifests: %s', (kustomization) => {
  const manifests = manifestsOf(kustomization);

  it('lists every manifest file of its folder in kustomization.yaml', () => {
    const dir = join(k8sDir, kustomization);
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort();
    const { resources } = readYaml(join(dir, 'kustomization.yaml'))[0] as { resources: string[] };
    expect([...resources].sort()).toEqual(files);
  });

  it('validates every resource against the Kubernetes schemas', () => {
    for (const manifest of manifests) {
      const Model = MODELS[manifest.kind];
      expect(Model, `no schema model for ${manifest.kind}`).toBeDefined();
      expect(() => new Model!(manifest as never).validate(), `${manifest.kind}/${manifest.metadata.name}`).not.toThrow();
    }
  });

  it('starts only entry points that exist in the repository', () => {
    for (const container of manifests.flatMap(containersOf).filter((c) => c.image === 'switchboard')) {
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
  });
});

describe('the distributed base', () => {
  const manifests = manifestsOf('base');
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

  it('points the services at NATS and the event store', () => {
    const config = byName('switchboard-config') as unknown as { data: Record<string, string> };
    expect(config.data['SWITCHBOARD_NATS_URL']).toMatch(/^nats:\/\//);
    expect(config.data['SWITCHBOARD_EVENTSTORE_URL']).toMatch(/^kurrentdb:\/\//);
  });
});
