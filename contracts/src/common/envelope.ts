import { z } from 'zod';

/**
 * Success envelopes, exactly as the spec shows them: `{ success: true, data }` for most calls,
 * `{ success: true, message }` for deletes and revocations.
 * Response objects strip unknown keys rather than reject them, so a serializer built on these
 * schemas drops anything internal instead of failing the request.
 */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

export const MessageResponse = z.object({ success: z.literal(true), message: z.string().min(1) });
export type MessageResponse = z.infer<typeof MessageResponse>;

export interface Success<T> {
  success: true;
  data: T;
}

/** Builds a success body. */
export function success<T>(data: T): Success<T> {
  return { success: true, data };
}

/** Builds a `{ success: true, message }` body. */
export function successMessage(message: string): MessageResponse {
  return { success: true, message };
}
