import { describe, expect, it } from 'vitest';
import type { DeliverMessageCommand } from '@switchboard/contracts';
import { ChatNetworkError, RecipientNotOnNetworkError } from '../chat/index.js';
import type { ChatDriver } from '../chat/index.js';
import { sendContent } from './deliveries.js';
import type { MediaSource } from './media-source.js';

const command = {
  accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', sessionId: 'ses_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', messageId: 'msg_01JD8Z5W3X4Y5Z6A7B8C9D0E1F',
  to: '15551230000', content: { type: 'text', text: 'hello' }, typing: true,
} as DeliverMessageCommand;
const noMedia = {} as MediaSource;

/** A driver whose "typing…" fails with `typingError`; it records what it was asked to send. */
function driverWhoseTypingFails(typingError: Error) {
  const sent: string[] = [];
  const driver = {
    showTyping: async () => {
      throw typingError;
    },
    sendText: async (_to: string, text: string) => {
      sent.push(text);
      return { id: 'NET1', at: new Date() };
    },
  } as unknown as ChatDriver;
  return { driver, sent };
}

describe('sendContent with "typing": true', () => {
  it('sends the message when the network did not take the chat state (a courtesy, not the message)', async () => {
    const { driver, sent } = driverWhoseTypingFails(new ChatNetworkError('sending failed'));
    await expect(sendContent(driver, command, noMedia)).resolves.toMatchObject({ id: 'NET1' });
    expect(sent).toEqual(['hello']);
  });

  it('sends nothing when the recipient is not on the network', async () => {
    const { driver, sent } = driverWhoseTypingFails(new RecipientNotOnNetworkError('15551230000'));
    await expect(sendContent(driver, command, noMedia)).rejects.toBeInstanceOf(RecipientNotOnNetworkError);
    expect(sent).toEqual([]);
  });
});
