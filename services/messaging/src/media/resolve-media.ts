import { ApiError, MEDIA_MAX_BYTES, classifyMedia } from '@switchboard/contracts';
import type { MediaDescriptor, MediaType } from '@switchboard/contracts';
import { fetchMediaUrl } from './fetch-url.js';
import type { Resolver } from './fetch-url.js';
import { sniffMimetype } from './sniff.js';

export interface MediaPolicy {
  allowLoopback: boolean;
  /** Whole fetch (connect, redirects, body). */
  fetchTimeoutMs: number;
  resolver?: Resolver;
}

export interface ResolvedMedia {
  bytes: Uint8Array;
  descriptor: MediaDescriptor;
}

export interface MediaRequest {
  mediaType: MediaType;
  media: string;
  filename?: string | undefined;
}

/**
 * Turns the `media` field into checked bytes: fetched (URL) or decoded (base64 / data URL),
 * within the type's size cap, sniffed against `mediaType`. Nothing of the source is kept but the
 * bytes' description (URLs often embed access tokens).
 */
export async function resolveMedia(request: MediaRequest, policy: MediaPolicy, sha256Of: (bytes: Uint8Array) => string): Promise<ResolvedMedia> {
  const maxBytes = MEDIA_MAX_BYTES[request.mediaType];
  const source = classifyMedia(request.media);
  if (source === null) throw new ApiError('VALIDATION_ERROR', 'media must be an http(s) URL, a data URL or base64 data', [{ path: 'media', message: 'invalid media' }]);
  const { bytes, hint } =
    source.kind === 'url'
      ? await fetchUrl(source.url, maxBytes, policy)
      : { bytes: decodeBase64(source.data, maxBytes), hint: source.mimetype };
  if (bytes.length === 0) throw new ApiError('MEDIA_UNREACHABLE', 'The media is empty.');
  const mimetype = await sniffMimetype(bytes, request.mediaType, hint);
  const descriptor: MediaDescriptor = { mediaType: request.mediaType, mimetype, sha256: sha256Of(bytes), size: bytes.length };
  if (request.filename !== undefined) descriptor.filename = request.filename;
  return { bytes, descriptor };
}

async function fetchUrl(url: string, maxBytes: number, policy: MediaPolicy): Promise<{ bytes: Uint8Array; hint: string | null }> {
  const fetched = await fetchMediaUrl(url, {
    maxBytes,
    timeoutMs: policy.fetchTimeoutMs,
    allowLoopback: policy.allowLoopback,
    ...(policy.resolver ? { resolver: policy.resolver } : {}),
  });
  return { bytes: fetched.bytes, hint: fetched.contentType };
}

function decodeBase64(data: string, maxBytes: number): Uint8Array {
  // The decoded size is known from the text length: refuse before allocating the bytes.
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  if ((data.length / 4) * 3 - padding > maxBytes) {
    throw new ApiError('MEDIA_TOO_LARGE', `The media exceeds the ${maxBytes}-byte limit for its type.`);
  }
  return new Uint8Array(Buffer.from(data, 'base64'));
}
