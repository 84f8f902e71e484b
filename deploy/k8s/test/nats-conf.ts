import { readFileSync } from 'node:fs';

/** One NATS user of base/nats.conf and what it may publish and subscribe to. */
export interface NatsUser {
  user: string;
  /** The `$NATS_<SERVICE>_PASSWORD` variable the server reads it from. */
  passwordVariable: string;
  publish: string[];
  subscribe: string[];
  allowResponses: boolean;
}

interface ConfUser {
  user: string;
  password: string;
  permissions?: { publish?: { allow?: string[] }; subscribe?: { allow?: string[] }; allow_responses?: boolean };
}

/**
 * Reads nats.conf as the server does for this file: JSON once the `#` comment lines are gone and
 * each `$VARIABLE` reference stands in for its value.
 */
export function readNatsConf(file: string): { conf: Record<string, unknown>; users: NatsUser[] } {
  const text = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\$(NATS_[A-Z_]+)/g, '"$$$1"');
  const conf = JSON.parse(text) as { authorization: { users: ConfUser[] } } & Record<string, unknown>;
  const users = conf.authorization.users.map((u) => ({
    user: u.user,
    passwordVariable: u.password.replace(/^\$/, ''),
    publish: u.permissions?.publish?.allow ?? [],
    subscribe: u.permissions?.subscribe?.allow ?? [],
    allowResponses: u.permissions?.allow_responses === true,
  }));
  return { conf, users };
}

/** NATS subject matching: `*` is one token, a final `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const wanted = pattern.split('.');
  const actual = subject.split('.');
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === '>') return i === wanted.length - 1 && actual.length > i;
    if (i >= actual.length || (wanted[i] !== '*' && wanted[i] !== actual[i])) return false;
  }
  return wanted.length === actual.length;
}

export const allows = (patterns: readonly string[], subject: string): boolean => patterns.some((p) => subjectMatches(p, subject));
