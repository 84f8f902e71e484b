import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress } from './address-policy.js';

describe('media address policy', () => {
  it.each([
    '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1', '100.64.0.1', '100.127.255.255',
    '169.254.169.254', '169.254.0.1', '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255', '198.18.0.1', '192.0.2.7',
    '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '2001:db8::1',
    '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:a00:1::', '::10.0.0.1',
    '::ffff:0:10.0.0.1', '::ffff:0:a9fe:a9fe', '64:ff9b:1::a00:1', '64:ff9b:1:ffff::808:808',
    'not-an-ip', '',
  ])('refuses %s', (address) => {
    expect(classifyAddress(address)).toBe('forbidden');
    expect(isAllowedAddress(address, true)).toBe(false);
  });

  it.each(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])('%s is loopback: refused unless the operator allows it', (address) => {
    expect(classifyAddress(address)).toBe('loopback');
    expect(isAllowedAddress(address, false)).toBe(false);
    expect(isAllowedAddress(address, true)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::ffff:0:8.8.8.8'])('allows public %s', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });
});
