import { z } from 'zod';
import { ErrorCode } from './codes.js';
import { ErrorDetails } from './details.js';

/** The error body every failing HTTP call answers with. `requestId` is the W3C trace id. */
export const ErrorEnvelope = z.object({
  success: z.literal(false).meta({ description: 'Always `false` on an error.', example: false }),
  error: z
    .object({
      code: ErrorCode.meta({ description: 'The stable, machine-readable reason (see the table of codes).', example: 'SESSION_NOT_FOUND' }),
      message: z.string().min(1).meta({ description: 'What went wrong and what to do, in words.', example: 'No session with this id exists.' }),
      details: ErrorDetails.optional().meta({
        description: 'Structured facts for the codes that have them: every problem of a `VALIDATION_ERROR` as `[{path, message}]`, limits and sizes, the `messageId` of a send that failed.',
      }),
      requestId: z.string().min(1).meta({ description: 'The request\'s id (`X-Request-Id`): quote it when reporting a problem.', example: '4bf92f3577b34da6a3ce929d0e0e4736' }),
    })
    .meta({ description: 'The failure.' }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
