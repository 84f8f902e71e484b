import { areJidsSameUser, getBinaryNodeChildren, isJidGroup, proto } from '@whiskeysockets/baileys';
import type { BinaryNode, WAMessage, WAMessageKey, WAMessageUpdate } from '@whiskeysockets/baileys';
import type { ReceiptEvent, ReceiptStatus } from '../driver.js';
import { BoundedMap } from '../bounded-map.js';

const Status = proto.WebMessageInfo.Status;
/** Receipts remembered to drop duplicates; both copies of one arrive within moments. */
const RECENT_RECEIPTS = 512;

function receiptStatus(status: number | null | undefined): ReceiptStatus | undefined {
  if (status === Status.DELIVERY_ACK) return 'delivered';
  if (status === Status.READ || status === Status.PLAYED) return 'read';
  return undefined;
}

/**
 * Turns the network's receipts into `receipt` events, once each and in order. Three paths feed
 * it: the `<receipt>` stanza itself, `messages.update`, and, right after a first login while
 * Baileys buffers events, the status it folds into the buffered `messages.upsert` of our own
 * message. A `read` that arrives with no `delivered` before it implies one.
 */
export class ReceiptTracker {
  readonly #reported = new BoundedMap<string, ReceiptStatus>(RECENT_RECEIPTS);

  fromUpdates(updates: WAMessageUpdate[], at = new Date()): ReceiptEvent[] {
    return updates.flatMap(({ key, update }) => this.#track(key, update.status, at));
  }

  fromUpserts(messages: WAMessage[], at = new Date()): ReceiptEvent[] {
    return messages.flatMap((message) => this.#track(message.key, message.status, at));
  }

  /**
   * Straight from a contact's `<receipt>` stanza, before Baileys' event buffer: while it buffers
   * it keeps only the last status per message, so a delivery processed after a read would hide
   * the read (found by the emulator's author). Receipts from our own account's devices and from
   * groups are not receipts for a message we sent to a contact.
   */
  fromReceiptNode(node: BinaryNode, ownJids: (string | undefined)[]): ReceiptEvent[] {
    const { from, participant, recipient, type, t } = node.attrs;
    if (!from || recipient || participant || isJidGroup(from) || ownJids.some((own) => own && areJidsSameUser(from, own))) return [];
    const status = type === undefined ? Status.DELIVERY_ACK : type === 'read' || type === 'played' ? Status.READ : undefined;
    const at = new Date(Number(t) * 1000 || Date.now());
    const list = Array.isArray(node.content) ? node.content.find((child) => child.tag === 'list') : undefined;
    const ids = [node.attrs.id, ...(list ? getBinaryNodeChildren(list, 'item').map((item) => item.attrs.id) : [])];
    return ids.flatMap((id) => (id ? this.#track({ id, fromMe: true }, status, at) : []));
  }

  #track(key: WAMessageKey, status: number | null | undefined, at: Date): ReceiptEvent[] {
    const reached = receiptStatus(status);
    if (!reached || !key.fromMe || !key.id) return [];
    const before = this.#reported.get(key.id);
    if (before === 'read' || before === reached) return [];
    this.#reported.set(key.id, reached);
    if (reached === 'read' && before === undefined) {
      return [{ id: key.id, status: 'delivered', at }, { id: key.id, status: 'read', at }];
    }
    return [{ id: key.id, status: reached, at }];
  }
}
