import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** A TLS key and self-signed certificate, both PEM. */
export interface TlsMaterial {
  keyPem: string;
  certPem: string;
}

// Minimal DER encoder: just enough ASN.1 for one self-signed X.509 v3 certificate.
const tlv = (tag: number, body: Buffer): Buffer => {
  const len = body.length;
  if (len < 0x80) return Buffer.concat([Buffer.from([tag, len]), body]);
  const bytes: number[] = [];
  for (let n = len; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), body]);
};
const seq = (...parts: Buffer[]): Buffer => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]): Buffer => tlv(0x31, Buffer.concat(parts));
const explicit = (n: number, body: Buffer): Buffer => tlv(0xa0 + n, body);
const octets = (body: Buffer): Buffer => tlv(0x04, body);
const bits = (body: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), body]));
const bool = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0]));
const utf8 = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));

/**
 * A non-negative DER INTEGER: minimal bytes (no leading zero unless the next byte has its high
 * bit set, which would read as negative). A random serial starting with 0x00 otherwise made about
 * one certificate in 500 unreadable ("illegal padding").
 */
export const derInteger = (value: Buffer): Buffer => {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const minimal = value.subarray(start);
  const body = (minimal[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal;
  return tlv(0x02, body.length === 0 ? Buffer.from([0]) : body);
};

const oid = (dotted: string): Buffer => {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [a * 40 + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let n = arc >>> 7; n > 0; n >>>= 7) chunk.unshift(0x80 | (n & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
};

const utcTime = (date: Date): Buffer => {
  const iso = date.toISOString(); // 2026-11-21T21:42:36.000Z
  const text = iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16) + iso.slice(17, 19) + 'Z';
  return tlv(0x17, Buffer.from(text, 'latin1'));
};

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

const extensions = (): Buffer => {
  const altNames = seq(tlv(0x82, Buffer.from('localhost')), tlv(0x87, Buffer.from([127, 0, 0, 1])));
  const subjectAltName = seq(oid('2.5.29.17'), octets(altNames));
  const basicConstraints = seq(oid('2.5.29.19'), bool(true), octets(seq(bool(true))));
  return explicit(3, seq(basicConstraints, subjectAltName));
};

const toPem = (label: string, der: Buffer): string => {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
};

/**
 * A self-signed P-256 certificate for 127.0.0.1 and localhost, built in process (no openssl):
 * the media host serves it and clients trust exactly this certificate.
 */
export const makeSelfSignedCertificate = (validDays = 3650): TlsMaterial => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(set(seq(oid('2.5.4.3'), utf8('Switchboard chat emulator media host'))));
  const notBefore = new Date(Date.now() - 60 * 60 * 1000);
  const notAfter = new Date(Date.now() + validDays * 24 * 60 * 60 * 1000);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const tbs = seq(
    explicit(0, derInteger(Buffer.from([2]))),
    derInteger(randomBytes(16)),
    ECDSA_SHA256,
    name,
    seq(utcTime(notBefore), utcTime(notAfter)),
    name,
    spki,
    extensions(),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = seq(tbs, ECDSA_SHA256, bits(signature));
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: toPem('CERTIFICATE', certificate),
  };
};
