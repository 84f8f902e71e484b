import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { validationIssues } from '../errors/validation.js';
import { EXAMPLE_IDS as ID } from '../examples/ids.js';
import { SendButtonsBody, SendLocationBody, SendMediaBody, SendPollBody, SendTextBody } from './http.js';

const base = { sessionId: ID.session, to: '15551234567' };
const text = { ...base, text: 'hi' };
const media = { ...base, mediaType: 'image', media: 'https://example.com/a.jpg' };
const location = { ...base, latitude: 0, longitude: 0 };
const buttons = { ...base, text: 'pick', buttons: [{ id: 'a', text: 'A' }] };
const poll = { ...base, question: 'Which day?', options: ['Tue', 'Wed'] };

/** Sorted issue paths, as the gateway reports them in `details`. */
function paths(schema: z.ZodType, body: unknown): string[] {
  const result = schema.safeParse(body);
  if (result.success) return [];
  return validationIssues(result.error).map((d) => d.path).sort();
}

describe('invalid send bodies report the exact path of each problem', () => {
  it.each<[string, z.ZodType, unknown, string[]]>([
    ['missing everything', SendTextBody, {}, ['sessionId', 'text', 'to']],
    ['not an object', SendTextBody, 'hello', ['']],
    ['empty text', SendTextBody, { ...text, text: '' }, ['text']],
    ['text of 4097', SendTextBody, { ...text, text: 'x'.repeat(4097) }, ['text']],
    ['phone with +', SendTextBody, { ...text, to: '+15551234567' }, ['to']],
    ['phone too short', SendTextBody, { ...text, to: '123456' }, ['to']],
    ['phone too long', SendTextBody, { ...text, to: '1234567890123456' }, ['to']],
    ['phone as number', SendTextBody, { ...text, to: 15551234567 }, ['to']],
    ['malformed session id', SendTextBody, { ...text, sessionId: 'abc' }, ['sessionId']],
    ['lower-case session id', SendTextBody, { ...text, sessionId: ID.session.toLowerCase() }, ['sessionId']],
    ['message id as session id', SendTextBody, { ...text, sessionId: ID.message }, ['sessionId']],
    ['malformed quotedMessageId', SendTextBody, { ...text, quotedMessageId: 'm1' }, ['quotedMessageId']],
    ['unknown field', SendTextBody, { ...text, txt: 'typo' }, ['txt']],
    ['caption on audio', SendMediaBody, { ...media, mediaType: 'audio', caption: 'x' }, ['caption']],
    ['filename on image', SendMediaBody, { ...media, filename: 'a.jpg' }, ['filename']],
    ['caption of 1025', SendMediaBody, { ...media, caption: 'x'.repeat(1025) }, ['caption']],
    ['unknown mediaType', SendMediaBody, { ...media, mediaType: 'sticker' }, ['mediaType']],
    ['unknown mediaType with a filename', SendMediaBody, { ...media, mediaType: 'sticker', filename: 'a' }, ['mediaType']],
    ['media not a URL or base64', SendMediaBody, { ...media, media: 'not media!' }, ['media']],
    ['ftp media URL', SendMediaBody, { ...media, media: 'ftp://example.com/a.jpg' }, ['media']],
    ['data URL without base64', SendMediaBody, { ...media, media: 'data:image/png,abc' }, ['media']],
    ['latitude 90.0001', SendLocationBody, { ...location, latitude: 90.0001 }, ['latitude']],
    ['latitude -91', SendLocationBody, { ...location, latitude: -91 }, ['latitude']],
    ['longitude 180.5', SendLocationBody, { ...location, longitude: 180.5 }, ['longitude']],
    ['latitude as string', SendLocationBody, { ...location, latitude: '52.5' }, ['latitude']],
    ['empty location name', SendLocationBody, { ...location, name: '' }, ['name']],
    ['no buttons', SendButtonsBody, { ...buttons, buttons: [] }, ['buttons']],
    ['four buttons', SendButtonsBody, { ...buttons, buttons: ['a', 'b', 'c', 'd'].map((id) => ({ id, text: id })) }, ['buttons']],
    ['button text of 21', SendButtonsBody, { ...buttons, buttons: [{ id: 'a', text: 'A' }, { id: 'b', text: 'x'.repeat(21) }] }, ['buttons.1.text']],
    ['empty button id', SendButtonsBody, { ...buttons, buttons: [{ id: '', text: 'A' }] }, ['buttons.0.id']],
    ['button id of 257', SendButtonsBody, { ...buttons, buttons: [{ id: 'x'.repeat(257), text: 'A' }] }, ['buttons.0.id']],
    ['duplicate button id', SendButtonsBody, { ...buttons, buttons: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'a', text: 'C' }] }, ['buttons.2.id']],
    ['unknown button field', SendButtonsBody, { ...buttons, buttons: [{ id: 'a', text: 'A', url: 'x' }] }, ['buttons.0.url']],
    ['footer of 61', SendButtonsBody, { ...buttons, footer: 'x'.repeat(61) }, ['footer']],
    ['poll without a question', SendPollBody, { ...poll, question: undefined }, ['question']],
    ['blank poll question', SendPollBody, { ...poll, question: '   ' }, ['question']],
    ['poll question of 256', SendPollBody, { ...poll, question: 'x'.repeat(256) }, ['question']],
    ['poll with one option', SendPollBody, { ...poll, options: ['Tue'] }, ['options']],
    ['poll with 13 options', SendPollBody, { ...poll, options: Array.from({ length: 13 }, (_, i) => `o${i}`) }, ['options']],
    ['empty option', SendPollBody, { ...poll, options: ['Tue', ''] }, ['options.1']],
    ['blank option', SendPollBody, { ...poll, options: ['Tue', ' \t'] }, ['options.1']],
    ['option of 101', SendPollBody, { ...poll, options: ['Tue', 'x'.repeat(101)] }, ['options.1']],
    ['duplicate options', SendPollBody, { ...poll, options: ['Tue', 'Wed', 'Tue'] }, ['options.2']],
    ['option not a string', SendPollBody, { ...poll, options: ['Tue', 3] }, ['options.1']],
    ['multipleAnswers not a boolean', SendPollBody, { ...poll, multipleAnswers: 'yes' }, ['multipleAnswers']],
    ['unknown poll field', SendPollBody, { ...poll, footer: 'f' }, ['footer']],
  ])('%s', (_name, schema, body, expected) => {
    expect(paths(schema, body)).toEqual(expected);
  });
});

describe('a poll body', () => {
  it('takes 2 and 12 options, defaults to one answer, keeps the options as given', () => {
    expect(SendPollBody.parse(poll)).toEqual({ ...poll, multipleAnswers: false });
    const twelve = Array.from({ length: 12 }, (_, i) => `option ${i}`);
    expect(SendPollBody.parse({ ...poll, options: twelve, multipleAnswers: true })).toMatchObject({ options: twelve, multipleAnswers: true });
    expect(SendPollBody.parse({ ...poll, options: ['Tue', 'tue', ' Tue'] }).options).toEqual(['Tue', 'tue', ' Tue']);
  });

  it('reports a duplicate next to an invalid sibling and a bad question, all at once', () => {
    expect(paths(SendPollBody, { ...poll, question: '', options: ['a', 'a', 'x'.repeat(101)] })).toEqual(['options.1', 'options.2', 'question']);
  });
});

describe('several problems are all reported at once', () => {
  it('reports field, cross-field and unknown-key problems of a media body together', () => {
    const body = { ...media, to: '+1', mediaType: 'audio', caption: 'x', filename: 'a.mp3', extra: true };
    expect(paths(SendMediaBody, body)).toEqual(['caption', 'extra', 'filename', 'to']);
  });

  it('reports a duplicate id next to an invalid sibling and a bad footer', () => {
    const body = {
      ...buttons,
      latitude: 1,
      footer: 'x'.repeat(61),
      buttons: [{ id: 'a', text: 'A' }, { id: 'a', text: 'x'.repeat(21) }],
    };
    expect(paths(SendButtonsBody, body)).toEqual(['buttons.1.id', 'buttons.1.text', 'footer', 'latitude']);
  });

  it('reports both coordinates', () => {
    expect(paths(SendLocationBody, { ...location, latitude: 100, longitude: -200 })).toEqual(['latitude', 'longitude']);
  });

  it('tells the client what a valid phone number looks like', () => {
    const result = SendTextBody.safeParse({ ...text, to: '+1 555 123' });
    expect(result.error?.issues[0]?.message).toContain('"15551234567"');
  });
});

describe('valid edges are accepted', () => {
  it.each<[string, z.ZodType, unknown]>([
    ['text of 4096', SendTextBody, { ...text, text: 'x'.repeat(4096) }],
    ['phone of 7 digits', SendTextBody, { ...text, to: '1234567' }],
    ['phone of 15 digits', SendTextBody, { ...text, to: '123456789012345' }],
    ['caption of 1024 on video', SendMediaBody, { ...media, mediaType: 'video', caption: 'x'.repeat(1024) }],
    ['audio without caption', SendMediaBody, { ...media, mediaType: 'audio' }],
    ['document with filename', SendMediaBody, { ...media, mediaType: 'document', filename: 'a.pdf' }],
    ['plain base64 media', SendMediaBody, { ...media, media: 'iVBORw0KGgo=' }],
    ['data URL media', SendMediaBody, { ...media, media: 'data:image/jpeg;base64,/9j/4AAQ' }],
    ['http URL media', SendMediaBody, { ...media, media: 'http://example.com/a.jpg?x=1' }],
    ['poles and antimeridian', SendLocationBody, { ...location, latitude: -90, longitude: 180 }],
    ['three buttons, 20-char text, 256-char id', SendButtonsBody, {
      ...buttons,
      buttons: [{ id: 'x'.repeat(256), text: 'x'.repeat(20) }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }],
    }],
    ['footer of 60', SendButtonsBody, { ...buttons, footer: 'x'.repeat(60) }],
  ])('%s', (_name, schema, body) => {
    expect(schema.safeParse(body).error?.issues ?? []).toEqual([]);
  });
});

describe('"typing" on every kind of send', () => {
  const bodies: [string, z.ZodType, Record<string, unknown>][] = [
    ['text', SendTextBody, text], ['media', SendMediaBody, media], ['location', SendLocationBody, location],
    ['buttons', SendButtonsBody, buttons], ['poll', SendPollBody, poll],
  ];

  it.each(bodies)('%s takes typing true or false, and nothing else', (_kind, schema, body) => {
    expect(paths(schema, { ...body, typing: true })).toEqual([]);
    expect(paths(schema, { ...body, typing: false })).toEqual([]);
    expect(paths(schema, { ...body, typing: 'yes' })).toEqual(['typing']);
    expect(paths(schema, { ...body, typing: 1 })).toEqual(['typing']);
  });
});
