import { z } from 'zod';
import { ApiError } from './api-error.js';
import type { ValidationIssue } from './details.js';

const TYPE_WORDS: Record<string, string> = {
  string: 'a string', number: 'a number', int: 'a whole number', bigint: 'a whole number', boolean: 'true or false',
  object: 'an object', array: 'a list', date: 'a date', null: 'null',
};
const UNITS: Record<string, [string, string]> = { string: ['character', 'characters'], array: ['item', 'items'], set: ['item', 'items'], file: ['byte', 'bytes'] };

const count = (n: number | bigint, origin: string): string => {
  const unit = UNITS[origin];
  return unit ? `${n} ${Number(n) === 1 ? unit[0] : unit[1]}` : String(n);
};

/** `must be at most 20 characters`, `must have at least 2 items`, `must be at most 10`. */
const bounded = (origin: string, bound: string, n: number | bigint): string =>
  `must ${origin === 'string' || !(origin in UNITS) ? 'be' : 'have'} ${bound} ${count(n, origin)}`;

/**
 * The library's default messages in words a person can act on ("is required", "must be at most 20
 * characters"); a schema's own message always wins. The field is named by `validationIssues`.
 */
export function messageInWords(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return bounded(String(issue.origin), issue.inclusive === false ? 'more than' : 'at least', issue.minimum);
    case 'too_big':
      return bounded(String(issue.origin), issue.inclusive === false ? 'less than' : 'at most', issue.maximum);
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'is not in the expected format' : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_union':
      return 'does not match any of the accepted forms';
    default:
      return undefined;
  }
}
z.config({ customError: messageInWords });

/** Dotted path as clients see it: `buttons.1.text`; the root is `""`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join('.');
}

/** `to is required`: the message names its field unless it already starts with it. */
function named(path: string, message: string): string {
  const field = path.split('.').at(-1) ?? '';
  if (path === '' || message.startsWith(`${path} `) || message.startsWith(`${field} `)) return message;
  return `${path} ${message}`;
}

/**
 * Flattens zod issues into `[{path, message}]`, each message naming its field. An unknown key is
 * reported once per key at that key's own path ("nickname is not a known field"), which is what
 * a client needs to find the typo.
 */
export function validationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const path = issuePath([...issue.path, key]);
        return { path, message: `${path} is not a known field` };
      });
    }
    const path = issuePath(issue.path);
    return [{ path, message: named(path, issue.message) }];
  });
}

/** VALIDATION_ERROR carrying every problem at once. `where` prefixes paths (`query`, `params`) when given. */
export function validationError(error: z.ZodError, where?: string): ApiError {
  const details = validationIssues(error).map((d) =>
    where === undefined ? d : { ...d, path: d.path === '' ? where : `${where}.${d.path}` },
  );
  return new ApiError('VALIDATION_ERROR', undefined, details);
}
