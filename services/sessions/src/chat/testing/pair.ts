import QRCode from 'qrcode';
import type { ChatDriver, ConnectedEvent } from '../driver.js';
import { nextEvent } from './driver-events.js';
import type { EmulatorControlClient } from '@switchboard/chat-emulator';

/**
 * Pairs a fresh driver the way a person would: the first QR is rendered to a PNG and the
 * emulator's fake phone `phone` scans that image.
 */
export async function pairWithPhone(driver: ChatDriver, control: EmulatorControlClient, phone: string, timeoutMs = 30_000): Promise<ConnectedEvent> {
  const qr = nextEvent(driver, 'qr', () => true, timeoutMs);
  const connected = nextEvent(driver, 'connected', () => true, timeoutMs);
  await driver.start();
  const { code } = await qr;
  await control.scan(await QRCode.toDataURL(code), phone);
  return connected;
}
