import type { Manifest } from './kustomize.js';

/**
 * Whether NetworkPolicies let a connection through, as a CNI that enforces them decides: the
 * source's egress and the destination's ingress must both allow it (a pod no policy of a
 * direction selects is open in that direction). Everything runs in one namespace; `outside` is
 * an address beyond the cluster, reached or reaching only through ipBlock rules or rules with no
 * peers at all. A pod with `namespace` (that namespace's labels) runs elsewhere in the cluster:
 * only namespaceSelectors reach it, and these policies do not govern its own traffic.
 */
export type Endpoint = { pod: Record<string, string>; namespace?: Record<string, string> } | { outside: string };

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
interface Peer { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: { cidr: string; except?: string[] } }
interface Rule { from?: Peer[]; to?: Peer[]; ports?: { protocol?: string; port?: number }[] }
interface PolicySpec { podSelector: Selector; policyTypes: ('Ingress' | 'Egress')[]; ingress?: Rule[]; egress?: Rule[] }

export function selects(selector: Selector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return values.includes(labels[key] ?? '\u0000');
    if (operator === 'NotIn') return !values.includes(labels[key] ?? '\u0000');
    if (operator === 'Exists') return key in labels;
    return !(key in labels);
  });
  return byLabels && byExpressions;
}

function ipv4(address: string): number {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function inCidr(address: string, cidr: string): boolean {
  const [base = '', bits = '0'] = cidr.split('/');
  // IPv6: only ::/0 and its exceptions appear in the manifests; a v4 address is never in a v6 block.
  if (base.includes(':') || address.includes(':')) return base.includes(':') && address.includes(':') && (bits === '0' || address === base);
  const block = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(address) / block) === Math.floor(ipv4(base) / block);
}

function peerMatches(peer: Peer, endpoint: Endpoint): boolean {
  if ('outside' in endpoint) {
    const block = peer.ipBlock;
    return block !== undefined && inCidr(endpoint.outside, block.cidr) && !(block.except ?? []).some((c) => inCidr(endpoint.outside, c));
  }
  if (peer.ipBlock) return false;
  // A podSelector alone means this namespace; a namespaceSelector picks namespaces (`{}`: all).
  const namespaceOk = peer.namespaceSelector ? selects(peer.namespaceSelector, endpoint.namespace ?? OWN_NAMESPACE) : !endpoint.namespace;
  return namespaceOk && (peer.podSelector === undefined || selects(peer.podSelector, endpoint.pod));
}

const OWN_NAMESPACE = { 'kubernetes.io/metadata.name': 'switchboard' };

function ruleAllows(rule: Rule, peers: Peer[] | undefined, other: Endpoint, port: number): boolean {
  const portOk = rule.ports === undefined || rule.ports.some((p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === undefined || p.port === port));
  return portOk && (peers === undefined || peers.some((peer) => peerMatches(peer, other)));
}

function policies(manifests: Manifest[]): PolicySpec[] {
  return manifests.filter((m) => m.kind === 'NetworkPolicy').map((m) => m['spec'] as PolicySpec);
}

function direction(manifests: Manifest[], pod: Record<string, string>, type: 'Ingress' | 'Egress', other: Endpoint, port: number): boolean {
  const relevant = policies(manifests).filter((p) => p.policyTypes.includes(type) && selects(p.podSelector, pod));
  if (relevant.length === 0) return true;
  return relevant.some((p) =>
    (type === 'Ingress' ? p.ingress : p.egress)?.some((rule) => ruleAllows(rule, type === 'Ingress' ? rule.from : rule.to, other, port)),
  );
}

/** Whether `from` may open a TCP connection to `to` on `port`. */
export function connectionAllowed(manifests: Manifest[], from: Endpoint, to: Endpoint, port: number): boolean {
  const out = 'pod' in from && !from.namespace ? direction(manifests, from.pod, 'Egress', to, port) : true;
  const into = 'pod' in to && !to.namespace ? direction(manifests, to.pod, 'Ingress', from, port) : true;
  return out && into;
}
