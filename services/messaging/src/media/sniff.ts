import { fileTypeFromBuffer } from 'file-type';
import { ApiError } from '@switchboard/contracts';
import type { MediaType } from '@switchboard/contracts';

const OCTET_STREAM = 'application/octet-stream';

/**
 * The bytes' real type, checked against the declared `mediaType`: an image must sniff as an
 * image, and so on. Documents take any bytes (PDFs, office files, text, even images: the chat app
 * sends those as files); their mimetype falls back to the hint (data URL or HTTP Content-Type).
 */
export async function sniffMimetype(bytes: Uint8Array, mediaType: MediaType, hint: string | null): Promise<string> {
  const sniffed = (await fileTypeFromBuffer(bytes))?.mime ?? null;
  if (mediaType === 'document') return sniffed ?? usableHint(hint) ?? OCTET_STREAM;
  if (sniffed !== null && matches(sniffed, mediaType)) return sniffed;
  const what = sniffed === null ? 'of no recognised type' : `of type ${sniffed}`;
  throw new ApiError('MEDIA_TYPE_MISMATCH', `The media is ${what}, not ${article(mediaType)} ${mediaType}.`);
}

function matches(mime: string, mediaType: Exclude<MediaType, 'document'>): boolean {
  // file-type names some audio containers as video/ or application/ (m4a is audio/x-m4a, ogg
  // opus audio/ogg, but plain MP4 audio sniffs as video/mp4); the chat app plays those as audio.
  if (mediaType === 'audio') return mime.startsWith('audio/') || mime === 'video/mp4' || mime === 'application/ogg';
  return mime.startsWith(`${mediaType}/`);
}

function usableHint(hint: string | null): string | null {
  return hint !== null && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(hint) ? hint : null;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}
