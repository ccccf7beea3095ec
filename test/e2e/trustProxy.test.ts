import { clientIpResolver } from '../../api/clientIp';
import { ConfigError, loadConfig } from '../../lib/config';
import { PASSWORD, uniqueEmail } from '../helpers/accounts';
import { createAccount } from '../helpers/factories';
import { makeSample } from '../helpers/samples';
import { useStack } from '../helpers/stack';

/**
 * Issue 14: with TRUST_PROXY on, the client must not choose its own address.
 * X-Forwarded-For is read from the right: only the entries the trusted
 * proxies appended count. Rate limits and consent records use that address.
 * The test client speaks to the API over loopback, playing the nearest proxy.
 */

describe('TRUST_PROXY settings', () => {
  it.each([
    [undefined, { hops: 0 }],
    ['false', { hops: 0 }],
    ['0', { hops: 0 }],
    ['true', { hops: 1 }],
    ['2', { hops: 2 }],
    ['10.0.0.1, 192.168.0.0/16, ::1', { proxies: ['10.0.0.1', '192.168.0.0/16', '::1'] }],
  ])('%j reads as %j', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each([['maybe'], ['11'], ['-1'], ['10.0.0.0/33'], ['10.0.0.1,nonsense']])(
    '%j is refused with a clear message',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        /TRUST_PROXY: must be false, true \(one proxy\), a hop count/,
      );
    },
  );
});

describe('the client address behind proxies', () => {
  const cases: [string, Parameters<typeof clientIpResolver>[0], string, string, string][] = [
    ['no trust: the peer, whatever the header says', { hops: 0 }, '10.0.0.2', '1.2.3.4', '10.0.0.2'],
    [
      'one hop: the entry the proxy appended, not the leftmost',
      { hops: 1 },
      '10.0.0.2',
      '6.6.6.6, 7.7.7.7, 198.51.100.7',
      '198.51.100.7',
    ],
    ['one hop, no header: the peer', { hops: 1 }, '10.0.0.2', '', '10.0.0.2'],
    ['two hops', { hops: 2 }, '10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.3', '198.51.100.7'],
    ['more hops than entries: the leftmost there is', { hops: 3 }, '10.0.0.2', '198.51.100.7', '198.51.100.7'],
    [
      'a junk entry where the client should be: the proxy that wrote the next one',
      { hops: 2 },
      '10.0.0.2',
      'junk, 10.0.0.3',
      '10.0.0.3',
    ],
    ['IPv4-mapped peer', { hops: 0 }, '::ffff:192.0.2.1', '', '192.0.2.1'],
    [
      'proxy list: walks past trusted proxies only',
      { proxies: ['10.0.0.0/8'] },
      '10.0.0.2',
      '6.6.6.6, 198.51.100.7, 10.1.2.3',
      '198.51.100.7',
    ],
    [
      'proxy list: an untrusted peer is the client, its header ignored',
      { proxies: ['10.0.0.0/8'] },
      '192.0.2.50',
      '198.51.100.7',
      '192.0.2.50',
    ],
  ];
  it.each(cases)('%s', (_label, trust, peer, forwardedFor, expected) => {
    expect(clientIpResolver(trust)(peer, forwardedFor)).toBe(expected);
  });
});

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

describe.each([
  ['one hop (TRUST_PROXY=1)', '1'],
  ['true means one hop', 'true'],
  ['a proxy list (TRUST_PROXY=127.0.0.1)', '127.0.0.1, ::1'],
])('behind %s, with spoofed X-Forwarded-For', (_label, trustProxy) => {
  const { deps, api } = useStack({ env: { TRUST_PROXY: trustProxy, RATE_LIMIT_REGISTER_PER_HOUR: '2' } });

  it('the per-IP register limit counts the address the proxy saw, whatever the client writes on the left', async () => {
    // The three stacks share one database's counters: 65,000 addresses (198.18.0.0/16), not 200, keep their
    // clients apart (three draws from 200 collided in about one run in 70, and the first register got 429).
    const client = `198.18.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 254) + 1}`;
    const register = (spoofed: string, real = client) =>
      post(
        `${api.url}/api/v1/auth/register/`,
        { email: uniqueEmail('xff'), password: PASSWORD },
        { 'X-Forwarded-For': `${spoofed}, ${real}` },
      );
    expect(await register('1.1.1.1')).toBe(201);
    expect(await register('2.2.2.2')).toBe(201);
    expect(await register('3.3.3.3')).toBe(429);
    expect(await register('not-an-ip')).toBe(429);
    const keys = await deps.db('rate_limit_counters').where('key', 'like', 'register:ip:%').pluck('key');
    expect(keys).toContain(`register:ip:${client}`);
    expect(keys.some((key: string) => /1\.1\.1\.1|2\.2\.2\.2|3\.3\.3\.3/.test(key))).toBe(false);
  });

  it('the consent record keeps the address the proxy saw', async () => {
    const owner = await createAccount(deps);
    const form = new FormData();
    for (const [name, value] of Object.entries({ name: 'Proxy test', consent: 'true' })) form.append(name, value);
    form.append('file', new Blob([await makeSample('wav')], { type: 'audio/wav' }), 'sample.wav');
    const response = await fetch(`${api.url}/api/voices/clone/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${owner.access}`, 'X-Forwarded-For': '6.6.6.6, 203.0.113.9' },
      body: form,
    });
    expect(response.status).toBe(202);
    const voice = (await response.json()) as { id: string };
    const consent = await deps.db('consent_records').where({ voice_id: voice.id }).first('client_ip');
    expect(consent.client_ip).toBe('203.0.113.9');
  });
});
