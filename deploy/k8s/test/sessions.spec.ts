import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render } from './kustomize.js';

// Issue 14: the chat connections are shared by three sessions replicas (leases and owners in
// JetStream KV), so the manifests run them as a Deployment that drains one replica at a time.

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELECTOR = { 'app.kubernetes.io/name': 'switchboard-sessions' };

interface PodSpec {
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: { topologyKey: string; maxSkew: number; labelSelector: { matchLabels: Record<string, string> } }[];
  containers: {
    name: string;
    env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
    lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
    readinessProbe?: unknown;
    volumeMounts?: { name: string; mountPath: string }[];
  }[];
  volumes?: { name: string; emptyDir?: object; persistentVolumeClaim?: object }[];
}

interface Workload {
  kind: string;
  metadata: { name: string };
  spec: {
    replicas: number;
    strategy?: { rollingUpdate?: { maxUnavailable?: number; maxSurge?: number } };
    volumeClaimTemplates?: unknown[];
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    // PodDisruptionBudget
    maxUnavailable?: number;
    minAvailable?: number;
  };
}

describe.each(['base', 'overlays/postgres'])('the sessions replicas: %s', (kustomization) => {
  const manifests = render(join(k8sDir, kustomization)) as unknown as Workload[];
  const sessions = manifests.find((m) => m.metadata.name === 'switchboard-sessions' && m.kind !== 'PodDisruptionBudget')!;
  const pod = sessions.spec.template.spec;
  const container = pod.containers.find((c) => c.name === 'sessions')!;

  it('runs three replicas as a Deployment: no replica has an identity or a volume of its own', () => {
    expect(sessions.kind).toBe('Deployment');
    expect(sessions.spec.replicas).toBe(3);
    expect(sessions.spec.volumeClaimTemplates).toBeUndefined();
    expect(pod.volumes?.filter((v) => v.persistentVolumeClaim)).toEqual([]);
  });

  it('keeps only rebuildable files (read models) and the outbox on an emptyDir at SWITCHBOARD_DATA_DIR', () => {
    const dataDir = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'switchboard-config') as unknown as { data: Record<string, string> };
    const mount = container.volumeMounts?.find((m) => m.mountPath === dataDir.data['SWITCHBOARD_DATA_DIR']);
    expect(mount).toBeDefined();
    expect(pod.volumes?.find((v) => v.name === mount!.name)?.emptyDir).toBeDefined();
  });

  it('holds the chat credentials in NATS (sealed with SWITCHBOARD_SECRET_KEY from the Secret), not on the pod', () => {
    const key = container.env?.find((e) => e.name === 'SWITCHBOARD_SECRET_KEY');
    expect(key?.valueFrom?.secretKeyRef).toEqual({ name: 'switchboard-secrets', key: 'secret-key' });
    expect(container.env?.find((e) => e.name === 'SWITCHBOARD_NATS_URL')?.value).toMatch(/^nats:\/\/sessions:/);
  });

  it('lets at most one replica be disrupted at a time (PodDisruptionBudget)', () => {
    const budgets = manifests.filter((m) => m.kind === 'PodDisruptionBudget' && m.spec.selector.matchLabels['app.kubernetes.io/name'] === 'switchboard-sessions');
    expect(budgets).toHaveLength(1);
    const [budget] = budgets;
    const unavailable = budget!.spec.maxUnavailable ?? sessions.spec.replicas - budget!.spec.minAvailable!;
    expect(unavailable).toBe(1);
    expect(budget!.spec.selector.matchLabels).toEqual(SELECTOR);
  });

  it('spreads the replicas over nodes and zones', () => {
    const constraints = pod.topologySpreadConstraints ?? [];
    expect(constraints.map((c) => c.topologyKey).sort()).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const constraint of constraints) {
      expect(constraint.maxSkew).toBe(1);
      expect(constraint.labelSelector.matchLabels).toEqual(SELECTOR);
      expect(sessions.spec.template.metadata.labels).toMatchObject(SELECTOR);
    }
  });

  it('gives SIGTERM time to hand every session over: a preStop pause, then at least 30 s of drain', () => {
    const preStop = container.lifecycle?.preStop;
    expect(preStop).toBeDefined();
    const pauseSeconds = preStop!.sleep?.seconds ?? Number(preStop!.exec!.command.at(-1));
    expect(pauseSeconds).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds! - pauseSeconds).toBeGreaterThanOrEqual(30);
  });

  it('rolls out one new replica before an old one drains, once the new one is ready', () => {
    expect(sessions.spec.strategy?.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
    expect(container.readinessProbe).toBeDefined();
  });
});
