import type { SecretCipher } from '@switchboard/service-kit';

/** Which message a sealed content belongs to, and under which key: what its ciphertext is bound to. */
export interface SealedFor {
  accountId: string;
  messageId: string;
  keyId: string;
}

/** Associated data of a content: copied into another message, account or key id, it does not open. */
export const contentAssociatedData = ({ accountId, messageId, keyId }: SealedFor): string =>
  `switchboard message content ${accountId} ${messageId} ${keyId}`;

/** A content sealed (AES-256-GCM, SecretCipher's layout) as base64; `type` stays readable beside it. */
export function sealContent<C extends { type: string }>(cipher: SecretCipher, to: SealedFor, content: C): { type: C['type']; keyId: string; sealed: string } {
  const sealed = cipher.seal(Buffer.from(JSON.stringify(content), 'utf8'), contentAssociatedData(to));
  return { type: content.type, keyId: to.keyId, sealed: sealed.toString('base64') };
}

/** The content as it was sealed (JSON, not yet validated); throws SecretDecryptionError when it does not open. */
export function openContent(cipher: SecretCipher, from: SealedFor, sealed: string): unknown {
  return JSON.parse(cipher.open(Buffer.from(sealed, 'base64'), contentAssociatedData(from)).toString('utf8'));
}
