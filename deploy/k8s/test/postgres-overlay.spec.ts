import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render } from './kustomize.js';
import type { Manifest } from './kustomize.js';

// overlays/postgres: the base with each service's events in a PostgreSQL database of its own.

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = ['sessions', 'messaging', 'quota', 'events'];

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
const containerOf = (m: Manifest) =>
  (m['spec'] as { template: { spec: { containers: { name: string; env?: EnvVar[]; envFrom?: unknown[] }[] } } }).template.spec.containers[0]!;

describe('the postgres overlay', () => {
  const manifests = render(join(k8sDir, 'overlays/postgres'));
  const base = render(join(k8sDir, 'base'));
  const named = (name: string, kind?: string) => manifests.find((m) => m.metadata.name === name && (!kind || m.kind === kind));

  it('is the base with KurrentDB swapped for PostgreSQL, nothing else added or lost', () => {
    const ids = (list: Manifest[]) => list.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    const expected = [
      ...ids(base).filter((id) => !id.endsWith('/kurrentdb') && !id.includes('kurrentdb')),
      'Service/postgres', 'StatefulSet/postgres', 'ConfigMap/postgres-initdb', 'NetworkPolicy/postgres-clients', 'NetworkPolicy/switchboard-to-postgres',
    ].sort();
    expect(ids(manifests)).toEqual(expected);
    expect(JSON.stringify(manifests)).not.toMatch(/kurrent/i);
  });

  it('points each service at a database of its own, as a role of its own, with the password from its own Secret', () => {
    const urls = SERVICES.map((service) => {
      const env = containerOf(named(`switchboard-${service}`)!).env ?? [];
      const url = env.find((e) => e.name === 'SWITCHBOARD_EVENTSTORE_URL')?.value;
      expect(url, service).toBe(`postgres://${service}@postgres:5432/${service}`);
      expect(env.find((e) => e.name === 'PGPASSWORD')?.valueFrom?.secretKeyRef, service).toEqual({ name: `switchboard-postgres-${service}`, key: 'password' });
      return url;
    });
    expect(new Set(urls).size).toBe(SERVICES.length);
  });

  it('leaves no shared event store URL behind, and none for the gateway (it owns no streams)', () => {
    const config = named('switchboard-config', 'ConfigMap') as unknown as { data: Record<string, string> };
    expect(config.data['SWITCHBOARD_EVENTSTORE_URL']).toBeUndefined();
    const gateway = containerOf(named('switchboard-gateway')!).env ?? [];
    expect(gateway.map((e) => e.name)).not.toContain('SWITCHBOARD_EVENTSTORE_URL');
    expect(gateway.map((e) => e.name)).not.toContain('PGPASSWORD');
  });

  it('keeps the rest of each workload as the base has it (NATS user, secret key, probes)', () => {
    for (const service of SERVICES) {
      const env = containerOf(named(`switchboard-${service}`)!).env ?? [];
      const baseEnv = containerOf(base.find((m) => m.metadata.name === `switchboard-${service}` && m.kind !== 'PodDisruptionBudget')!).env ?? [];
      expect(env.filter((e) => !['PGPASSWORD', 'SWITCHBOARD_EVENTSTORE_URL'].includes(e.name)), service).toEqual(baseEnv);
    }
  });

  it('creates the four roles and databases at first start, each password from the service\'s Secret', () => {
    const postgres = named('postgres', 'StatefulSet')!;
    const env = Object.fromEntries((containerOf(postgres).env ?? []).map((e) => [e.name, e.valueFrom?.secretKeyRef ?? e.value]));
    expect(env['POSTGRES_PASSWORD']).toEqual({ name: 'switchboard-postgres', key: 'password' });
    for (const service of SERVICES) {
      expect(env[`POSTGRES_${service.toUpperCase()}_PASSWORD`], service).toEqual({ name: `switchboard-postgres-${service}`, key: 'password' });
    }
    const initdb = named('postgres-initdb', 'ConfigMap') as unknown as { data: Record<string, string> };
    const script = initdb.data['10-switchboard-databases.sh']!;
    expect(script).toBe(readFileSync(join(k8sDir, 'overlays/postgres/initdb/10-switchboard-databases.sh'), 'utf8'));
    expect(script).toMatch(new RegExp(`for service in ${SERVICES.join(' ')}; do`));
    expect(script).toContain('CREATE DATABASE :"name" OWNER :"name";');
    expect(script).toContain('REVOKE ALL ON DATABASE :"name" FROM PUBLIC;');
  });

  it('keeps the database on a volume of its own', () => {
    const postgres = named('postgres', 'StatefulSet')!['spec'] as { volumeClaimTemplates: { metadata: { name: string } }[] };
    expect(postgres.volumeClaimTemplates.map((t) => t.metadata.name)).toEqual(['data']);
  });
});
