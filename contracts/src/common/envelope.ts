import { z } from 'zod';

/**
 * Success envelopes, exactly as the spec shows them: `{ success: true, data }` for most calls,
 * `{ success: true, message }` for deletes and revocations.
 * Response objects strip unknown keys rather than reject them, so a serializer built on these
 * schemas drops anything internal instead of failing the request.
 */
const SUCCESS_TRUE = z.literal(true).meta({ description: 'Always `true` on a 2xx answer.', example: true });

export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: SUCCESS_TRUE, data: data.meta({ description: 'The result.' }) });
}

export const MessageResponse = z.object({
  success: SUCCESS_TRUE,
  message: z.string().min(1).meta({ description: 'What was done, in words.', example: 'Session disconnected and deleted' }),
});
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
