import { jidDecode } from '@whiskeysockets/baileys';
import { phoneForLid } from './model.js';

/** A jid resolved to the phone number behind it (PN or LID addressing) and a device. */
export interface Address {
  phone: string;
  device: number;
}

export const resolveJid = (jid: string | undefined): Address | undefined => {
  if (!jid) return undefined;
  const decoded = jidDecode(jid);
  if (!decoded?.user) return undefined;
  const device = decoded.device ?? 0;
  if (decoded.server === 'lid') {
    const phone = phoneForLid(decoded.user);
    return phone ? { phone, device } : undefined;
  }
  return decoded.server === 's.whatsapp.net' ? { phone: decoded.user, device } : undefined;
};
