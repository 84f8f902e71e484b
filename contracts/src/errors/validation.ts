import type { z } from 'zod';
import { ApiError } from './api-error.js';
import type { ValidationIssue } from './details.js';

/** Dotted path as clients see it: `buttons.1.text`; the root is `""`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join('.');
}

/**
 * Flattens zod issues into `[{path, message}]`. An unknown-key issue is reported once per key at
 * that key's own path ("Unknown field"), which is what a client needs to find the typo.
 */
export function validationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: issuePath([...issue.path, key]), message: 'Unknown field' }));
    }
    return [{ path: issuePath(issue.path), message: issue.message }];
  });
}

/** VALIDATION_ERROR carrying every problem at once. `where` prefixes paths (`query`, `params`) when given. */
export function validationError(error: z.ZodError, where?: string): ApiError {
  const details = validationIssues(error).map((d) =>
    where === undefined ? d : { ...d, path: d.path === '' ? where : `${where}.${d.path}` },
  );
  return new ApiError('VALIDATION_ERROR', undefined, details);
}
