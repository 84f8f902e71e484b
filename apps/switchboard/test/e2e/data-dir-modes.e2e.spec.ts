import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../support/harness.js';
import { PNG } from '../support/media.js';

/** Every entry under `root` as `path mode` (octal), folders marked with a trailing slash. */
function modesUnder(root: string): Map<string, string> {
  const modes = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const mode = (statSync(path).mode & 0o777).toString(8);
      modes.set(`${relative(root, path)}${entry.isDirectory() ? '/' : ''}`, mode);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(root);
  return modes;
}

// What an operator finds on disk after a first start that paired a phone and sent a text and
// an image: credentials, events, read models, media and the emulator's state, none of it
// readable by another user of the host.
describe.each<Mode>(['embedded', 'distributed'])('files under SWITCHBOARD_DATA_DIR (%s mode)', (mode) => {
  let sut: SwitchboardUnderTest;

  beforeAll(async () => {
    // Embedded without a configured key: the generated secret-key file is part of what is checked.
    // Distributed on SQLite per service (one host): the files whose modes are checked.
    sut = await startSwitchboardUnderTest(mode, mode === 'embedded' ? { env: { SWITCHBOARD_SECRET_KEY: '' } } : { eventStore: 'sqlite' });
    const api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, `1555${String(process.pid % 10_000).padStart(4, '0')}01`);
    const sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    const to = `1556${String(process.pid % 10_000).padStart(4, '0')}02`;
    expect((await api.post('/v1/messages/text', { sessionId, to, text: 'hello' })).status).toBe(201);
    const image = await api.post('/v1/messages/media', { sessionId, to, mediaType: 'image', media: PNG.toString('base64') });
    expect(image.status, JSON.stringify(image.body)).toBe(201);
    await eventually(() => sut.emulator.messages(to), (m) => m.length === 2);
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
  });

  it('are folders 0700 and files 0600, the credentials store and its WAL included', () => {
    const modes = modesUnder(sut.dataDir);
    const expected = [
      // Distributed, the chat credentials are in a JetStream KV bucket every sessions replica reads.
      ...(mode === 'embedded' ? ['sessions/chat-credentials.sqlite', 'sessions/chat-credentials.sqlite-wal', 'sessions/chat-credentials.sqlite-shm'] : []),
      'sessions/', 'sessions/events.sqlite', 'sessions/read-models.sqlite', 'messaging/events.sqlite', 'messaging/read-models.sqlite',
      'quota/events.sqlite', 'quota/publisher.sqlite', 'emulator/', 'emulator/network.json', 'emulator/inbox/',
      ...(mode === 'embedded' ? ['sessions/secret-key', 'media/'] : []),
    ];
    expect(expected.filter((path) => !modes.has(path)), 'files a first start writes').toEqual([]);
    const wrong = [...modes].filter(([path, m]) => m !== (path.endsWith('/') ? '700' : '600')).map(([path, m]) => `${path} ${m}`);
    expect(wrong).toEqual([]);
  });
});
