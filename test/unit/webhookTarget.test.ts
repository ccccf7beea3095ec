import { createHmac } from 'node:crypto';
import { checkTargetUrl, isInternalAddress, TargetRefused } from '../../lib/webhookTarget';
import { signatureHeader, signPayload, stableEventId } from '../../synthesis/webhooks';

describe('webhook target addresses', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::7f00:1',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    // IPv4 spelled inside IPv6 in ways the first guard missed: SIIT-translated, 6to4, local-use NAT64, Teredo.
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '2002:7f00:1::',
    '2002:a00:1::1',
    '64:ff9b:1::7f00:1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '::127.0.0.1',
    '100::1',
    '2001:db8::1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isInternalAddress(address)).toBe(true);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450:4001:80b::200e',
    '2002:808:808::1',
    '64:ff9b::808:808',
  ])('allows the public address %s', (address) => {
    expect(isInternalAddress(address)).toBe(false);
  });

  const strict = { allowHttp: false, allowPrivate: false };
  it.each([
    'https://127.0.0.1/',
    'https://10.0.0.1/hook',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:0:127.0.0.1]/',
    'https://[2002:7f00:1::]/',
    'https://[64:ff9b:1::7f00:1]/',
    'https://localhost/',
    'https://api.localhost/',
  ])('refuses the URL %s without WEBHOOK_ALLOW_PRIVATE_TARGETS', (url) => {
    expect(() => checkTargetUrl(url, strict)).toThrow(TargetRefused);
    expect(() => checkTargetUrl(url, { allowHttp: false, allowPrivate: true })).not.toThrow();
  });

  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://100.100.100.200/',
    'https://[::ffff:169.254.169.254]/',
    'https://[fe80::1]/',
  ])('refuses the metadata URL %s even with WEBHOOK_ALLOW_PRIVATE_TARGETS', (url) => {
    expect(() => checkTargetUrl(url, { allowHttp: true, allowPrivate: true })).toThrow(TargetRefused);
  });

  it('takes http only when the operator allows it, and never credentials', () => {
    expect(() => checkTargetUrl('http://example.com/', strict)).toThrow('Must be an https URL.');
    expect(checkTargetUrl('http://example.com/', { allowHttp: true, allowPrivate: false }).host).toBe('example.com');
    expect(() => checkTargetUrl('ftp://example.com/', { allowHttp: true, allowPrivate: false })).toThrow(TargetRefused);
    expect(() => checkTargetUrl('https://user:pw@example.com/', strict)).toThrow('Must not contain credentials.');
  });
});

describe('webhook signatures', () => {
  it('signs "<timestamp>.<body>" with HMAC-SHA256, newest secret first during a rotation', () => {
    const body = '{"id":"evt_1"}';
    expect(signPayload('whsec_test', 1700000000, body)).toBe(
      createHmac('sha256', 'whsec_test').update(`1700000000.${body}`).digest('hex'),
    );
    expect(signatureHeader(['whsec_new', 'whsec_old'], 1, body)).toBe(
      `v1=${signPayload('whsec_new', 1, body)},v1=${signPayload('whsec_old', 1, body)}`,
    );
  });

  it('gives the same event the same id', () => {
    expect(stableEventId('voice.ready', 'a')).toBe(stableEventId('voice.ready', 'a'));
    expect(stableEventId('voice.ready', 'a')).not.toBe(stableEventId('voice.failed', 'a'));
  });
});
