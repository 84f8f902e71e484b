import { EmulatorError } from './errors.js';

/** Media a contact can send; `audio` with `ptt` is a voice note. */
export type InboundMediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';
export const INBOUND_MEDIA_KINDS: readonly InboundMediaKind[] = ['image', 'video', 'audio', 'document', 'sticker'];

export interface InboundMedia {
  kind: InboundMediaKind;
  bytes: Buffer;
  mimetype: string;
  caption?: string;
  filename?: string;
  ptt?: boolean;
}

/** How the network names the sender to the linked device: by LID (as WhatsApp now does) or by phone number. */
export type Addressing = 'lid' | 'pn';

/** What a contact sends: exactly one kind, optionally quoting an earlier message. */
export type InboundKind =
  | { kind: 'text'; text: string }
  | { kind: 'media'; media: InboundMedia }
  | { kind: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { kind: 'contact'; displayName: string; vcard: string }
  | { kind: 'reaction'; messageId: string; emoji: string }
  | { kind: 'pollVote'; pollMessageId: string; options: string[] }
  | { kind: 'buttonReply'; buttonId: string; text?: string };

export type InboundSpec = InboundKind & {
  to: string;
  quotedMessageId?: string;
  /** The network message id to use (a redelivery of the same message); minted when absent. */
  id?: string;
  addressing?: Addressing;
  /** false: the stanza names the sender one way only, without `sender_pn` / `sender_lid` beside it. */
  alternate?: boolean;
};

type Body = Record<string, unknown>;

const bad = (message: string): EmulatorError => new EmulatorError(400, 'invalid_request', message);

const DEFAULT_MIMETYPES: Record<InboundMediaKind, string> = {
  image: 'image/jpeg',
  video: 'video/mp4',
  audio: 'audio/ogg; codecs=opus',
  document: 'application/octet-stream',
  sticker: 'image/webp',
};

const str = (body: Body, key: string, where = key): string => {
  const value = body[key];
  if (typeof value !== 'string' || value.length === 0) throw bad(`${where} must be a non-empty string`);
  return value;
};
const optionalStr = (body: Body, key: string, where = key): string | undefined => (body[key] === undefined ? undefined : str(body, key, where));
const obj = (value: unknown, where: string): Body => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(`${where} must be an object`);
  return value as Body;
};
const num = (body: Body, key: string, where: string, limit: number): number => {
  const value = body[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) throw bad(`${where} must be a number within ±${limit}`);
  return value;
};

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const media = (kind: InboundMediaKind, raw: unknown): InboundKind => {
  const m = obj(raw, kind);
  const base64 = str(m, 'base64', `${kind}.base64`);
  if (!BASE64.test(base64)) throw bad(`${kind}.base64 must be base64`);
  if (m.ptt !== undefined && (kind !== 'audio' || typeof m.ptt !== 'boolean')) throw bad('ptt is a boolean of audio only');
  const caption = optionalStr(m, 'caption', `${kind}.caption`);
  const filename = optionalStr(m, 'filename', `${kind}.filename`);
  return {
    kind: 'media',
    media: {
      kind,
      bytes: Buffer.from(base64, 'base64'),
      mimetype: optionalStr(m, 'mimetype', `${kind}.mimetype`) ?? DEFAULT_MIMETYPES[kind],
      ...(caption === undefined ? {} : { caption }),
      ...(filename === undefined ? {} : { filename }),
      ...(m.ptt === true ? { ptt: true } : {}),
    },
  };
};

const KIND_PARSERS: Record<string, (raw: unknown, body: Body) => InboundKind> = {
  text: (_raw, body) => ({ kind: 'text', text: str(body, 'text') }),
  ...Object.fromEntries(INBOUND_MEDIA_KINDS.map((k) => [k, (raw: unknown) => media(k, raw)])),
  location: (raw) => {
    const l = obj(raw, 'location');
    const name = optionalStr(l, 'name', 'location.name');
    const address = optionalStr(l, 'address', 'location.address');
    return {
      kind: 'location',
      latitude: num(l, 'latitude', 'location.latitude', 90),
      longitude: num(l, 'longitude', 'location.longitude', 180),
      ...(name === undefined ? {} : { name }),
      ...(address === undefined ? {} : { address }),
    };
  },
  contact: (raw) => {
    const c = obj(raw, 'contact');
    return { kind: 'contact', displayName: str(c, 'displayName', 'contact.displayName'), vcard: str(c, 'vcard', 'contact.vcard') };
  },
  reaction: (raw) => {
    const r = obj(raw, 'reaction');
    if (typeof r.emoji !== 'string') throw bad('reaction.emoji must be a string ("" removes the reaction)');
    return { kind: 'reaction', messageId: str(r, 'messageId', 'reaction.messageId'), emoji: r.emoji };
  },
  pollVote: (raw) => {
    const p = obj(raw, 'pollVote');
    const options = p.options;
    if (!Array.isArray(options) || !options.every((o) => typeof o === 'string')) throw bad('pollVote.options must be an array of strings');
    return { kind: 'pollVote', pollMessageId: str(p, 'pollMessageId', 'pollVote.pollMessageId'), options: options as string[] };
  },
  buttonReply: (raw) => {
    const b = obj(raw, 'buttonReply');
    const text = optionalStr(b, 'text', 'buttonReply.text');
    return { kind: 'buttonReply', buttonId: str(b, 'id', 'buttonReply.id'), ...(text === undefined ? {} : { text }) };
  },
};

/** The body of `POST /contacts/{phone}/messages`: `to`, one kind, and the optional extras. */
export const parseInboundSpec = (body: Body, isPhone: (value: unknown) => value is string): InboundSpec => {
  if (!isPhone(body.to)) throw bad('to must be the linked phone number, digits only');
  const kinds = Object.keys(KIND_PARSERS).filter((k) => body[k] !== undefined);
  if (kinds.length !== 1) throw bad(`give exactly one of ${Object.keys(KIND_PARSERS).join(', ')}`);
  const kind = kinds[0]!;
  const content = KIND_PARSERS[kind]!(body[kind], body);
  if (body.addressing !== undefined && body.addressing !== 'lid' && body.addressing !== 'pn') throw bad('addressing must be "lid" or "pn"');
  if (body.alternate !== undefined && typeof body.alternate !== 'boolean') throw bad('alternate must be a boolean');
  const quotedMessageId = optionalStr(body, 'quotedMessageId');
  const id = optionalStr(body, 'id');
  return {
    ...content,
    to: body.to,
    ...(quotedMessageId === undefined ? {} : { quotedMessageId }),
    ...(id === undefined ? {} : { id }),
    ...(body.addressing === undefined ? {} : { addressing: body.addressing }),
    ...(body.alternate === undefined ? {} : { alternate: body.alternate }),
  };
};
