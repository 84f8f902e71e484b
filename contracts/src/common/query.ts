import { z } from 'zod';

const WHOLE_NUMBER = /^[0-9]+$/;

/**
 * Query-string integers arrive as strings. Only plain digit strings (or real integers, when a
 * caller passes parsed values) are turned into numbers; "abc", "1.5", "-1", "", "1e3" and
 * repeated parameters stay as they are and fail the number check with a readable message.
 */
function digitsToNumber(value: unknown): unknown {
  return typeof value === 'string' && WHOLE_NUMBER.test(value) ? Number(value) : value;
}

/** An integer query parameter with a lower bound and no upper bound (`Number.isInteger`, not safe-int). */
export function queryInteger(name: string, min: number) {
  const message = `${name} must be a whole number of at least ${min}`;
  return z.preprocess(
    digitsToNumber,
    z
      .number({ error: message })
      .refine((n) => Number.isInteger(n), message)
      .refine((n) => n >= min, message)
      // The refinements keep the readable messages; the document still says what is accepted.
      .meta({ type: 'integer', minimum: min }),
  );
}

/** The paging fields of a listed page: how many match in all, and the limit and offset applied. */
export const PAGE_FIELDS = {
  total: z.number().int().min(0).meta({ description: 'How many match in all.', example: 1 }),
  limit: z.number().int().min(1).max(100).meta({ description: 'The limit applied (at most 100).', example: 10 }),
  offset: z.number().int().min(0).meta({ description: 'The offset applied.', example: 0 }),
};

export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;
export const LIST_OFFSET_DEFAULT = 0;

/** `limit`: 1 or more, default 10; values above 100 are accepted and clamped to 100 (then echoed). */
export const ListLimit = queryInteger('limit', 1)
  .optional()
  .meta({ description: 'Whole number of at least 1, default 10; values above 100 are treated as 100.', example: 10 })
  .transform((n) => Math.min(n ?? LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX));

/** `offset`: 0 or more (up to 2^53-1 so it stays exact), default 0. */
export const ListOffset = queryInteger('offset', 0)
  .refine((n) => Number.isSafeInteger(n), 'offset is too large')
  .optional()
  .meta({ description: 'Whole number of at least 0, default 0.', example: 0 })
  .transform((n) => n ?? LIST_OFFSET_DEFAULT);
