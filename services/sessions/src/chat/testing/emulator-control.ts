import type { EmulatorControlClient, ReceivedMessage } from '@switchboard/chat-emulator';

/**
 * What `phone` received as message `id`, waiting for it to arrive (the emulated contact decrypts
 * asynchronously). The emulator's own control client does everything else.
 */
export async function waitForReceived(control: EmulatorControlClient, phone: string, id: string, timeoutMs = 5_000): Promise<ReceivedMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await control.messages(phone)).find((message) => message.id === id);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`${phone} did not receive ${id} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
