import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render } from './kustomize.js';
import { connectionAllowed } from './network-policy.js';
import type { Endpoint } from './network-policy.js';

// Who may talk to whom once a CNI enforces the NetworkPolicies: only the gateway takes traffic
// from outside; the services reach NATS, their event store and (those that must) the internet;
// NATS and the store take connections from the services only.

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const pod = (name: string): Endpoint => ({ pod: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'switchboard' } });
const INTERNET: Endpoint = { outside: '157.240.1.53' };
const PRIVATE: Endpoint = { outside: '10.0.0.7' };
const METADATA: Endpoint = { outside: '169.254.169.254' };
/** A pod of the namespace that is none of Switchboard's (a debug pod, a compromised sidecar). */
const STRANGER: Endpoint = { pod: { app: 'debug' } };
/** Prometheus, in a namespace of its own. */
const PROMETHEUS: Endpoint = { pod: { 'app.kubernetes.io/name': 'prometheus' }, namespace: { 'kubernetes.io/metadata.name': 'monitoring' } };
const SERVICES = ['switchboard-quota', 'switchboard-sessions', 'switchboard-messaging', 'switchboard-events'];
const PROCESSES = ['switchboard-gateway', ...SERVICES];

describe.each([
  ['base', 'kurrentdb', 2113],
  ['overlays/postgres', 'postgres', 5432],
] as const)('NetworkPolicies: %s', (kustomization, store, storePort) => {
  const manifests = render(join(k8sDir, kustomization));
  const allowed = (from: Endpoint, to: Endpoint, port: number) => connectionAllowed(manifests, from, to, port);
  const ports: [string, number][] = [
    ['switchboard-gateway', 8080], ...SERVICES.map((s): [string, number] => [s, 9464]), ['nats', 4222], ['nats', 8222], [store, storePort],
  ];

  it('denies everything not allowed: a default-deny policy selects every pod, both ways', () => {
    const denyAll = manifests.filter((m) => m.kind === 'NetworkPolicy').map((m) => m['spec'] as { podSelector: object; policyTypes: string[]; ingress?: unknown; egress?: unknown });
    expect(denyAll.some((p) => Object.keys(p.podSelector).length === 0 && p.policyTypes.length === 2 && !p.ingress && !p.egress)).toBe(true);
  });

  it('takes traffic from outside the cluster on the gateway\'s HTTP port only', () => {
    for (const [name, port] of ports) {
      expect(allowed(INTERNET, pod(name), port), `${name}:${port}`).toBe(name === 'switchboard-gateway' && port === 8080);
    }
  });

  it('lets the gateway and the four services reach NATS, and nothing else of the namespace reach it', () => {
    for (const name of PROCESSES) expect(allowed(pod(name), pod('nats'), 4222), name).toBe(true);
    expect(allowed(STRANGER, pod('nats'), 4222)).toBe(false);
    expect(allowed(pod(store), pod('nats'), 4222)).toBe(false);
  });

  it(`lets only the four services reach the event store (${store})`, () => {
    for (const name of SERVICES) expect(allowed(pod(name), pod(store), storePort), name).toBe(true);
    expect(allowed(pod('switchboard-gateway'), pod(store), storePort)).toBe(false);
    expect(allowed(STRANGER, pod(store), storePort)).toBe(false);
    expect(allowed(pod('nats'), pod(store), storePort)).toBe(false);
  });

  it('keeps the services from talking to each other directly: only over NATS', () => {
    for (const from of PROCESSES) {
      for (const [to, port] of ports.filter(([name]) => name.startsWith('switchboard-'))) {
        if (from !== to) expect(allowed(pod(from), pod(to), port), `${from} -> ${to}:${port}`).toBe(false);
      }
    }
  });

  it('lets the metrics ports be scraped from other namespaces of the cluster (Prometheus), and nothing else of the services be reached from there', () => {
    for (const name of SERVICES) expect(allowed(PROMETHEUS, pod(name), 9464), name).toBe(true);
    expect(allowed(PROMETHEUS, pod('switchboard-gateway'), 8080)).toBe(true);
    expect(allowed(PROMETHEUS, pod('nats'), 4222)).toBe(false);
    expect(allowed(PROMETHEUS, pod(store), storePort)).toBe(false);
  });

  it('lets out to the internet only what the chat network, media URLs and webhooks need, never private or metadata addresses', () => {
    const out = (name: string, to: Endpoint, port: number) => allowed(pod(name), to, port);
    expect(out('switchboard-sessions', INTERNET, 443)).toBe(true);
    expect(out('switchboard-messaging', INTERNET, 443)).toBe(true);
    expect(out('switchboard-messaging', INTERNET, 80)).toBe(true);
    expect(out('switchboard-events', INTERNET, 443)).toBe(true);
    for (const name of ['switchboard-gateway', 'switchboard-quota', 'nats', store]) expect(out(name, INTERNET, 443), name).toBe(false);
    for (const name of PROCESSES) {
      expect(out(name, PRIVATE, 443), name).toBe(false);
      expect(out(name, METADATA, 80), name).toBe(false);
    }
  });

  it('lets every pod look names up (DNS on port 53)', () => {
    for (const name of [...PROCESSES, 'nats', store]) expect(allowed(pod(name), { outside: '10.96.0.10' }, 53), name).toBe(true);
  });
});
