import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derInteger, makeSelfSignedCertificate } from './tls-cert.js';

describe('the media host certificate', () => {
  it('is a valid self-signed certificate for 127.0.0.1 and localhost, matching its key', () => {
    const { keyPem, certPem } = makeSelfSignedCertificate();
    const cert = new X509Certificate(certPem);
    expect(cert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now());
  });

  it('encodes serials minimally, so one that starts with zero bytes still reads (DER has no leading zeros)', () => {
    expect(derInteger(Buffer.from([0x00, 0x00, 0x12, 0x34]))).toEqual(Buffer.from([0x02, 0x02, 0x12, 0x34]));
    expect(derInteger(Buffer.from([0x00, 0x85]))).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x85]));
    expect(derInteger(Buffer.from([0x85]))).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x85]));
    expect(derInteger(Buffer.from([0x00, 0x00]))).toEqual(Buffer.from([0x02, 0x01, 0x00]));
  });
});
