import { answerBundles } from './bundles.js';
import { applyPreKeyUpload, applySignedPreKey } from './device-keys.js';
import type { LinkedDevice } from './model.js';
import type { Network } from './network.js';
import { answerUsync } from './usync.js';
import { child, children, firstChild, iqResult } from './wire.js';
import type { Node } from './wire.js';

/** What an iq handler may touch: the network, the caller's own device, the media host's address. */
export interface IqContext {
  network: Network;
  self: LinkedDevice;
  mediaHost: string;
  /** The client asked to unlink itself (`remove-companion-device`). */
  unlinkSelf(): void;
}

const answerEncrypt = (ctx: IqContext, iq: Node): Node => {
  const first = firstChild(iq);
  if (iq.attrs.type === 'get' && first?.tag === 'count') {
    return iqResult(iq, [{ tag: 'count', attrs: { value: String(ctx.self.preKeyCount) } }]);
  }
  if (iq.attrs.type === 'get' && first?.tag === 'digest') return iqResult(iq, [{ tag: 'digest', attrs: {} }]);
  if (iq.attrs.type === 'get' && first?.tag === 'key') return answerBundles(ctx.network, ctx.self, iq);
  if (child(iq, 'list')) applyPreKeyUpload(ctx.self, iq);
  else if (first?.tag === 'rotate') applySignedPreKey(ctx.self, child(first, 'skey'));
  ctx.network.deviceChanged(ctx.self.phone);
  return iqResult(iq);
};

const answerMediaConn = (ctx: IqContext, iq: Node): Node =>
  iqResult(iq, [
    {
      tag: 'media_conn',
      attrs: { auth: 'emulator', ttl: '3600', auth_ttl: '3600', max_buckets: '1' },
      content: [{ tag: 'host', attrs: { hostname: ctx.mediaHost, maxContentLengthBytes: '104857600' } }],
    },
  ]);

const answerPrivacy = (ctx: IqContext, iq: Node): Node => {
  const first = firstChild(iq);
  if (iq.attrs.type === 'set' && first?.tag === 'tokens') {
    // A client issuing its trusted-contact tokens (WhatsApp Web: once per contact and 7 days).
    const { privacyTokensIssued } = ctx.network;
    privacyTokensIssued.set(ctx.self.phone, (privacyTokensIssued.get(ctx.self.phone) ?? 0) + children(first, 'token').length);
    return iqResult(iq);
  }
  if (first?.tag !== 'privacy') return iqResult(iq);
  const categories = ['readreceipts', 'last', 'online', 'profile', 'status', 'groupadd', 'calladd'];
  const content = categories.map((name) => ({ tag: 'category', attrs: { name, value: name === 'readreceipts' ? 'all' : 'contacts' } }));
  return iqResult(iq, [{ tag: 'privacy', attrs: {}, content }]);
};

const answerMd = (ctx: IqContext, iq: Node): Node => {
  if (firstChild(iq)?.tag === 'remove-companion-device') ctx.unlinkSelf();
  return iqResult(iq);
};

/** Answers every iq a logged-in Baileys client sends; anything unknown gets an empty result. */
export const answerIq = (ctx: IqContext, iq: Node): Node => {
  switch (iq.attrs.xmlns) {
    case 'encrypt':
      return answerEncrypt(ctx, iq);
    case 'usync':
      return answerUsync(ctx.network, ctx.self, iq);
    case 'w:m':
      return answerMediaConn(ctx, iq);
    case 'privacy':
      return answerPrivacy(ctx, iq);
    case 'abt':
      return iqResult(iq, [{ tag: 'props', attrs: { protocol: '1', hash: 'emulator' }, content: [] }]);
    case 'blocklist':
      return iqResult(iq, [{ tag: 'list', attrs: {} }]);
    case 'md':
      return answerMd(ctx, iq);
    default: // passive, w:p (ping), w:stats, dirty, ...
      return iqResult(iq);
  }
};
