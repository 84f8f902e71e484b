import { z } from 'zod';

/**
 * The `media` field: an http(s) URL, a data URL (`data:<mime>;base64,<data>`) or plain base64.
 * Only the form is checked here. The gateway decodes inline media, checks its size cap and
 * stores it (the bus carries a reference); fetching URLs, address filtering and byte sniffing
 * happen in the messaging service.
 */
/**
 * How long messaging may spend fetching a media URL before the send deadline starts
 * (api-decisions.md: fetched with a timeout). The gateway adds it to its wait for such sends.
 */
export const MEDIA_FETCH_TIMEOUT_MS = 15_000;

const DATA_URL_HEAD = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)(?:;[^,;]+=[^,;]*)*;base64,/i;
const HTTP_URL = /^https?:\/\//i;
// A character-class test with no quantified groups: grouped regexes overflow V8's backtracking
// stack on multi-megabyte inputs (found with a 140 MB string).
const BASE64_CHARS = /[^A-Za-z0-9+/]/;

/** Standard base64 with padding: length a multiple of 4, at most two trailing "=". */
export function isBase64(value: string): boolean {
  if (value.length === 0 || value.length % 4 !== 0) return false;
  const body = value.endsWith('==') ? value.slice(0, -2) : value.endsWith('=') ? value.slice(0, -1) : value;
  return !BASE64_CHARS.test(body);
}
/** Where the bytes of a media message come from, once classified. */
export type MediaSourceForm =
  | { kind: 'url'; url: string }
  | { kind: 'base64'; data: string; mimetype: string | null };

function parseHttpUrl(value: string): string | null {
  if (!HTTP_URL.test(value) || value.length > 4096) return null;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? value : null;
  } catch {
    return null;
  }
}

/** Classifies a `media` string, or `null` when it is none of the accepted forms. */
export function classifyMedia(value: string): MediaSourceForm | null {
  const url = parseHttpUrl(value);
  if (url !== null) return { kind: 'url', url };
  const head = DATA_URL_HEAD.exec(value.slice(0, 256));
  if (head) {
    const data = value.slice(head[0].length);
    return isBase64(data) ? { kind: 'base64', data, mimetype: head[1]?.toLowerCase() ?? null } : null;
  }
  if (value.startsWith('data:')) return null;
  return isBase64(value) ? { kind: 'base64', data: value, mimetype: null } : null;
}

/** An http(s) URL as `media` accepts it: what the bus carries of a media URL. */
export const MediaUrl = z.string().refine((value) => classifyMedia(value)?.kind === 'url', { message: 'media must be an http(s) URL' });

export const MediaSource = z
  .string()
  .min(1, 'media is required')
  .refine((value) => classifyMedia(value) !== null, {
    message: 'media must be an http(s) URL, a data URL (data:<type>;base64,...) or base64 data',
  })
  .meta({
    description:
      'The media: an http(s) URL to fetch, a data URL (`data:<type>;base64,...`) or plain base64. Limits: image 5 MiB, video and audio 16 MiB, document 100 MiB; inline data also counts against the 25 MiB body, so send large files by URL.',
    example: 'https://example.com/photo.jpg',
  });
export type MediaSource = z.infer<typeof MediaSource>;
