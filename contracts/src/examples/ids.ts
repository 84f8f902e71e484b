/** Well-formed ids used by the examples and tests. */
export const EXAMPLE_IDS = {
  session: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R',
  session2: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2S',
  message: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K',
  message2: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9M',
  account: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F',
  key: 'key_01JD8Z5X0A1B2C3D4E5F6G7H8J',
} as const;

/** A 1×1 PNG: the smallest real image a data URL can carry. */
export const EXAMPLE_PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const EXAMPLE_TIME = '2026-11-21T10:15:30.000Z';
export const EXAMPLE_TIME_LATER = '2026-11-21T10:15:31.250Z';
