import { ERASED_TEXT } from '@switchboard/contracts';
import type { HistoryContent, HistoryMessageType, InboundContent, MessageContent } from '@switchboard/contracts';

/** `/v1/messages/{id}/media`: where a history item's media bytes are served. */
export const mediaPath = (messageId: string): string => `/v1/messages/${messageId}/media`;

/** What an outbound message shows in the history (media as metadata and its path). */
export function outboundHistoryContent(content: MessageContent, messageId: string): HistoryContent {
  switch (content.type) {
    case 'text':
      return { text: content.text };
    case 'media': {
      const { mediaType, mimetype, size, sha256, filename } = content.media;
      const caption = content.caption === undefined ? {} : { caption: content.caption };
      return { media: { mediaType, mimetype, size, sha256, ...caption, ...(filename ? { filename } : {}), url: mediaPath(messageId) } };
    }
    case 'location': {
      const { latitude, longitude, name, address } = content;
      return { location: { latitude, longitude, ...(name ? { name } : {}), ...(address ? { address } : {}) } };
    }
    case 'buttons':
      return { text: content.text, buttons: content.buttons, ...(content.footer ? { footer: content.footer } : {}) };
    case 'poll':
      return { poll: { question: content.question, options: content.options, multipleAnswers: content.multipleAnswers } };
  }
}

/** What a received message shows in the history: its type and content fields. */
export function inboundHistoryContent(content: InboundContent, messageId: string): { type: HistoryMessageType; content: HistoryContent } {
  switch (content.type) {
    case 'text':
      return { type: 'text', content: { text: content.text } };
    case 'media':
      return { type: 'media', content: { media: { ...content.media, url: mediaPath(messageId) } } };
    case 'location': {
      const { latitude, longitude, name, address } = content;
      return { type: 'location', content: { location: { latitude, longitude, ...(name ? { name } : {}), ...(address ? { address } : {}) } } };
    }
    case 'contact':
      return { type: 'contact', content: { contact: { displayName: content.displayName, vcard: content.vcard } } };
    case 'poll_vote': {
      // Our id of the poll when we sent it; the network's otherwise.
      const pollMessageId = content.pollMessageId ?? content.pollNetworkId;
      return { type: 'poll_vote', content: { pollVote: { pollMessageId, options: content.options, ...(content.unreadable ? { unreadable: true } : {}) } } };
    }
    case 'button_reply':
      return { type: 'button_reply', content: { buttonReply: { id: content.id, ...(content.text === undefined ? {} : { text: content.text }) } } };
    case 'unsupported':
      return { type: 'unsupported', content: { rawType: content.rawType } };
  }
}

/** A history row's content once the account's contents were erased (MessageContentsErased). */
export const ERASED_ROW = '{"erased":true}';

/** What an erased message shows in the history: no content field of its type, `text` reading `[erased]`. */
export const ERASED_HISTORY_CONTENT: HistoryContent = { text: ERASED_TEXT, erased: true };
