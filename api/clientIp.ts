import { BlockList, isIP } from 'node:net';
import type { Middleware } from 'koa';
import type { TrustProxy } from '../lib/config';

/**
 * The client's address, as rate limits and consent records use it. Without
 * TRUST_PROXY it is the socket's peer. Behind proxies, X-Forwarded-For is read
 * from the right: every trusted proxy appends the address it saw, so only the
 * entries they wrote count, and whatever the client put on the left is never
 * taken (Koa's own `ip` takes the leftmost entry, which the client chooses).
 */

/** `::ffff:192.0.2.1` and `192.0.2.1` are one client. */
function normalize(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped ? mapped[1] : trimmed;
}

function blockListOf(proxies: string[]): BlockList {
  const list = new BlockList();
  for (const entry of proxies) {
    const [address, bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

export type ClientIpResolver = (socketAddress: string, forwardedFor: string) => string;

export function clientIpResolver(trust: TrustProxy): ClientIpResolver {
  const proxies = 'proxies' in trust ? blockListOf(trust.proxies) : null;
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && proxies !== null && proxies.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (socketAddress, forwardedFor) => {
    const peer = normalize(socketAddress);
    if ('hops' in trust && trust.hops === 0) return peer;
    // The chain as the last proxy saw it: the forwarded entries, then the peer itself.
    const chain = [...forwardedFor.split(',').map(normalize).filter(Boolean), peer];
    let index: number;
    if ('hops' in trust) {
      // The peer is the nearest of `hops` proxies; the entry `hops` places left of it is the client.
      index = Math.max(0, chain.length - 1 - trust.hops);
    } else {
      // Walk left while the address is a trusted proxy; the first untrusted one is the client.
      index = chain.length - 1;
      while (index > 0 && isTrusted(chain[index])) index--;
    }
    // A client can write anything left of the proxies' entries; an entry that is not an
    // address is never taken: the address of the nearest proxy that wrote a valid one is.
    while (index < chain.length - 1 && !isIP(chain[index])) index++;
    return chain[index];
  };
}

/** Sets `ctx.ip` (Koa's setter) to the resolved client address for everything after it. */
export function clientIp(trust: TrustProxy): Middleware {
  const resolve = clientIpResolver(trust);
  return async (ctx, next) => {
    ctx.request.ip = resolve(ctx.req.socket.remoteAddress ?? '', ctx.get('X-Forwarded-For'));
    await next();
  };
}
