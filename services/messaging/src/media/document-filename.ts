import { extension } from 'mime-types';

const MAX_LENGTH = 255;

/**
 * The name a document sent without `filename` is shown under: the URL's last path segment when it
 * is a usable name (decoded; no separators or control characters), else `file.<ext>` from its
 * mimetype (`file.bin` when none is known). The query and fragment never count (tokens live there).
 */
export function documentFilename(url: string | undefined, mimetype: string): string {
  const fromUrl = url === undefined ? undefined : lastSegment(url);
  return fromUrl ?? `file.${extension(mimetype) || 'bin'}`;
}

function lastSegment(url: string): string | undefined {
  let segment: string;
  try {
    segment = decodeURIComponent(new URL(url).pathname.split('/').at(-1) ?? '');
  } catch {
    return undefined;
  }
  const name = segment.trim();
  if (name === '' || /^\.+$/.test(name) || /[/\\\u0000-\u001f\u007f]/.test(name) || name.length > MAX_LENGTH) return undefined;
  return name;
}
