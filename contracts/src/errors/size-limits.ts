import { MEDIA_MAX_BYTES } from '../messages/status.js';
import type { MediaType } from '../messages/status.js';
import { ApiError } from './api-error.js';
import type { SizeLimitDetails } from './details.js';

// The two "too large" answers name their limit in the message (in MiB, as the docs do) and give
// the figures in bytes in `details`, so a client can tell how far over it was.

/** Bytes in MiB for messages: `24 MiB`, `5.5 MiB`. */
export function formatMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

/** 413 PAYLOAD_TOO_LARGE: a request body over `limit`; `size` when the client declared it. */
export function payloadTooLarge(limit: number, size?: number): ApiError {
  const details: SizeLimitDetails = size === undefined ? { limit } : { limit, size };
  return new ApiError('PAYLOAD_TOO_LARGE', `The request body exceeds the ${limitText(limit)}${sizeText(size)}. Send large media by URL.`, details);
}

/** 422 MEDIA_TOO_LARGE: media over its type's cap (MEDIA_MAX_BYTES); `size` when known. */
export function mediaTooLarge(mediaType: MediaType, size?: number): ApiError {
  const limit = MEDIA_MAX_BYTES[mediaType];
  const details: SizeLimitDetails = size === undefined ? { mediaType, limit } : { mediaType, limit, size };
  return new ApiError('MEDIA_TOO_LARGE', `The media exceeds the ${limitText(limit)} for ${mediaType}${sizeText(size)}.`, details);
}

const limitText = (limit: number) => `${formatMiB(limit)} (${limit}-byte) limit`;
const sizeText = (size: number | undefined) => (size === undefined ? '' : `: it has ${size} bytes`);
