import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a webhook may be delivered, and the one place that sends it. The
 * target's name is resolved once per attempt, every address is checked, and
 * the connection goes to the checked address (the socket's `lookup` returns
 * it), so a DNS answer that changes between check and connect (rebinding)
 * cannot reach an internal host. Redirects are never followed.
 */

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (incl. 192.0.0.192 metadata on some clouds)
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
/**
 * IPv6 is allowed only from global unicast (2000::/3), minus the ranges
 * below; everything outside it (loopback, unique-local, link-local,
 * multicast, IPv4-mapped and -translated forms, local-use NAT64) is refused
 * as a whole, so a new way to spell an internal address is refused too.
 */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
const blockedGlobal = new BlockList();
for (const [network, prefix] of [
  ['2001::', 32], // Teredo: the IPv4 inside is obfuscated, refuse it whole
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
] as const) {
  blockedGlobal.addSubnet(network, prefix, 'ipv6');
}

/**
 * Cloud metadata services: refused even when WEBHOOK_ALLOW_PRIVATE_TARGETS
 * opens private networks (an operator who allows an internal receiver does
 * not mean the instance's credentials).
 */
const metadata = new BlockList();
metadata.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local: AWS, GCP, Azure, OpenStack (169.254.169.254), ECS (169.254.170.2)
metadata.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud
metadata.addAddress('192.0.0.192', 'ipv4'); // Oracle Cloud
metadata.addSubnet('fe80::', 10, 'ipv6'); // link-local
metadata.addAddress('fd00:ec2::254', 'ipv6'); // AWS over IPv6

/** The eight 16-bit groups of an IPv6 address (an embedded dotted quad included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...middle, ...tailGroups].map((group) => parseInt(group, 16));
}

/** The IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, well-known NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`), if any. */
function embeddedIPv4(address: string): string | null {
  const groups = ipv6Groups(address);
  const quad = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) return quad(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return quad(groups[6], groups[7]);
  if (groups[0] === 0x2002) return quad(groups[1], groups[2]);
  return null;
}

/** True for loopback, private, link-local, multicast, unspecified, reserved and metadata addresses, in IPv4 or IPv6 (any IPv6 outside global unicast). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse rather than guess
  const ipv4 = embeddedIPv4(address);
  if (ipv4) return blocked.check(ipv4, 'ipv4');
  const bare = address.split('%')[0];
  return !globalUnicast.check(bare, 'ipv6') || blockedGlobal.check(bare, 'ipv6');
}

/** True for the cloud metadata addresses (and all link-local), however spelled: refused whatever the policy. */
export function isMetadataAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return metadata.check(address, 'ipv4');
  if (family !== 6) return false;
  const ipv4 = embeddedIPv4(address);
  if (ipv4) return metadata.check(ipv4, 'ipv4');
  return metadata.check(address.split('%')[0], 'ipv6');
}

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Why a target is refused; thrown before any connection is made. */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/** Checks the URL's form (scheme, no credentials); the address is checked per attempt by `resolveTarget`. */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('Must be an absolute URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new TargetRefused(policy.allowHttp ? 'Must be an http or https URL.' : 'Must be an https URL.');
  }
  if (url.username || url.password) throw new TargetRefused('Must not contain credentials.');
  const host = hostOf(url);
  if (isIP(host) && isMetadataAddress(host))
    throw new TargetRefused('Must not point to a link-local or cloud metadata address.');
  if (
    !policy.allowPrivate &&
    (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isInternalAddress(host)))
  ) {
    throw new TargetRefused('Must not point to a loopback, private, link-local or metadata address.');
  }
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Resolves the host once and checks every address it has; returns the one to connect to. */
async function resolveTarget(url: URL, policy: TargetPolicy): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(url);
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await lookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new TargetRefused('The host has no address.');
  if (addresses.some(({ address }) => isMetadataAddress(address)))
    throw new TargetRefused('The host resolves to a link-local or cloud metadata address.');
  if (!policy.allowPrivate) {
    const internal = addresses.find(({ address }) => isInternalAddress(address));
    if (internal) throw new TargetRefused('The host resolves to a loopback, private, link-local or metadata address.');
  }
  const { address, family } = addresses[0];
  return { address, family: family === 6 ? 6 : 4 };
}

export interface PostResult {
  status: number;
}

/**
 * POSTs a body to a checked target and answers with the response's status;
 * the response body is read (at most 64 KiB) and dropped. A 3xx is an answer
 * like any other: its Location is never followed.
 */
export async function postToTarget(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  { policy, timeoutMs }: { policy: TargetPolicy; timeoutMs: number },
): Promise<PostResult> {
  const url = checkTargetUrl(rawUrl, policy);
  const target = await resolveTarget(url, policy);
  // The socket connects to the address checked above, whatever DNS says now.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all)
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body).toString(),
          'User-Agent': 'OpenVox-Webhooks/1',
          ...headers,
        },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 64 * 1024) response.destroy();
        });
        response.on('close', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
