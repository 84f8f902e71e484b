import { z } from 'zod';
import { ErrorCode } from './codes.js';
import { ErrorDetails } from './details.js';

/** The error body every failing HTTP call answers with. `requestId` is the W3C trace id. */
export const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: z.object({
    code: ErrorCode,
    message: z.string().min(1),
    details: ErrorDetails.optional(),
    requestId: z.string().min(1),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
