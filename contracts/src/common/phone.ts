import { z } from 'zod';

export const PHONE_EXAMPLE = '15551234567';

/**
 * Phone: a chat-network number in E.164 without the "+": country code and subscriber number,
 * digits only, 7–15 of them (E.164 allows at most 15). No country code starts with 0, so a
 * leading 0 is a national-format number (a common mistake) and is refused too.
 */
export const Phone = z
  .string()
  .regex(
    /^[1-9][0-9]{6,14}$/,
    `must be an international phone number: 7–15 digits starting with the country code, no "+", spaces or dashes, e.g. "${PHONE_EXAMPLE}"`,
  )
  .meta({ description: 'A phone number in international format: country code and number, digits only (E.164 without "+").', example: PHONE_EXAMPLE });
export type Phone = z.infer<typeof Phone>;
