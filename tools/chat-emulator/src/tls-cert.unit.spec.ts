import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeSelfSignedCertificate } from './tls-cert.js';

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
});
