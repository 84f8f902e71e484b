import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';

/** One stanza of the WhatsApp binary XML protocol. */
export type Node = BinaryNode;

export const SERVER_JID = 's.whatsapp.net';

export const nowSeconds = (): string => Math.floor(Date.now() / 1000).toString();

export const child = (node: Node | undefined, tag: string): Node | undefined => getBinaryNodeChild(node, tag);

export const children = (node: Node | undefined, tag: string): Node[] => getBinaryNodeChildren(node, tag);

/** The first child element, if the content is a list of nodes. */
export const firstChild = (node: Node): Node | undefined => (Array.isArray(node.content) ? node.content[0] : undefined);

export const bytesOf = (node: Node | undefined): Buffer | undefined =>
  node?.content instanceof Uint8Array ? Buffer.from(node.content) : undefined;

export const iqResult = (request: Node, content?: Node[]): Node => ({
  tag: 'iq',
  attrs: { from: SERVER_JID, id: request.attrs.id ?? '', type: 'result', t: nowSeconds() },
  ...(content ? { content } : {}),
});
