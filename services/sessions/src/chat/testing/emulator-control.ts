/** What a contact on the emulated network received, decrypted (the emulator's control API). */
export interface ReceivedByContact {
  id: string;
  from: string;
  type: string;
  text?: string;
  caption?: string;
  filename?: string;
  mimetype?: string;
  sha256?: string;
  latitude?: number;
  longitude?: number;
  name?: string;
  address?: string;
  buttons?: { id: string; text: string }[];
  footer?: string;
  quotedId?: string;
  receivedAt: string;
}

export interface ContactBehaviour {
  onNetwork: boolean;
  /** null = never. */
  deliverAfterMs: number | null;
  readAfterMs: number | null;
}

/**
 * A client for the chat emulator's control API (spec/operations.md): the fake phones and
 * contacts that tests and benchmarks drive. Loopback only, like the emulator itself.
 */
export class EmulatorControl {
  constructor(readonly controlUrl: string) {}

  /** A phone with number `phone` scans `qrCode` (the PNG data URL, or the raw pairing string). */
  async scan(qrCode: string, phone: string): Promise<void> {
    await this.#call('POST', '/scan', { qrCode, phone });
  }

  async setContact(phone: string, behaviour: ContactBehaviour): Promise<void> {
    await this.#call('PUT', `/contacts/${phone}`, behaviour);
  }

  async received(phone: string): Promise<ReceivedByContact[]> {
    return (await this.#call('GET', `/contacts/${phone}/messages`)) as ReceivedByContact[];
  }

  /** What `phone` received as message `id`, waiting for it to arrive (decryption is asynchronous). */
  async waitForReceived(phone: string, id: string, timeoutMs = 5_000): Promise<ReceivedByContact> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.received(phone)).find((message) => message.id === id);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`${phone} did not receive ${id} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The contact `phone` writes `text` to the linked number `to`. */
  async sendFromContact(phone: string, to: string, text: string): Promise<unknown> {
    return this.#call('POST', `/contacts/${phone}/messages`, { to, text });
  }

  async dropDevice(phone: string): Promise<void> {
    await this.#call('POST', `/devices/${phone}/drop`);
  }

  async logoutDevice(phone: string): Promise<void> {
    await this.#call('POST', `/devices/${phone}/logout`);
  }

  async healthy(): Promise<boolean> {
    const response = await fetch(new URL('/health', this.controlUrl)).catch(() => undefined);
    return response?.ok === true;
  }

  async #call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(new URL(path, this.controlUrl), {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`emulator ${method} ${path} answered ${response.status}: ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  }
}
