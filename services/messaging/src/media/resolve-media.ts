import { ApiError, MEDIA_MAX_BYTES, mediaTooLarge } from '@switchboard/contracts';
import type { MediaDescriptor, MediaType, StoredMedia } from '@switchboard/contracts';
import { sha256Hex } from '@switchboard/blob-store';
import type { BlobStore } from '@switchboard/blob-store';
import { documentFilename } from './document-filename.js';
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
  /** An http(s) URL, or inline media the gateway already put in the blob store. */
  media: string | StoredMedia;
  filename?: string | undefined;
}

/**
 * Turns the `media` of a send into checked bytes: fetched (URL) or read back from the blob store
 * (inline media, stored by the gateway), within the type's size cap, sniffed against `mediaType`.
 * Nothing of the source is kept but the bytes' description (URLs often embed access tokens).
 */
export async function resolveMedia(request: MediaRequest, policy: MediaPolicy, blobs: Pick<BlobStore, 'get'>): Promise<ResolvedMedia> {
  const maxBytes = MEDIA_MAX_BYTES[request.mediaType];
  const { bytes, hint } =
    typeof request.media === 'string'
      ? await fetchUrl(request.media, request.mediaType, policy)
      : { bytes: await readStored(request.media, blobs), hint: request.media.mimetype };
  if (bytes.length === 0) throw new ApiError('MEDIA_UNREACHABLE', 'The media is empty.');
  // The gateway checked inline media already; the cap is this service's rule whoever calls it.
  if (bytes.length > maxBytes) throw mediaTooLarge(request.mediaType, bytes.length);
  const mimetype = await sniffMimetype(bytes, request.mediaType, hint);
  const descriptor: MediaDescriptor = { mediaType: request.mediaType, mimetype, sha256: sha256Hex(bytes), size: bytes.length };
  if (request.filename !== undefined) descriptor.filename = request.filename;
  else if (request.mediaType === 'document') descriptor.filename = documentFilename(typeof request.media === 'string' ? request.media : undefined, mimetype);
  return { bytes, descriptor };
}

async function fetchUrl(url: string, mediaType: MediaType, policy: MediaPolicy): Promise<{ bytes: Uint8Array; hint: string | null }> {
  const fetched = await fetchMediaUrl(url, {
    mediaType,
    timeoutMs: policy.fetchTimeoutMs,
    allowLoopback: policy.allowLoopback,
    ...(policy.resolver ? { resolver: policy.resolver } : {}),
  });
  return { bytes: fetched.bytes, hint: fetched.contentType };
}

/** The gateway put these bytes a moment ago; they are gone only if the store lost them. */
async function readStored(media: StoredMedia, blobs: Pick<BlobStore, 'get'>): Promise<Uint8Array> {
  const bytes = await blobs.get(media.sha256).catch((error: unknown) => {
    throw Object.assign(new ApiError('SERVICE_UNAVAILABLE', 'Media cannot be read from the media store right now; retry later.'), { cause: error });
  });
  if (bytes === null) throw new ApiError('MEDIA_UNREACHABLE', 'The inline media is no longer in the media store; send it again.');
  return bytes;
}
