import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP relay the multi-node harness puts in front of PostgreSQL in the data
 * namespace (this kernel has no sch_netem, so `tc netem delay` is not
 * possible): every byte from the server to a client waits DELAY_MS before it
 * is sent on, in order, while SIGUSR1 has switched the delay on (SIGUSR2 off).
 * The round trip then grows by DELAY_MS, as with netem on one direction.
 *
 * Run: node delayProxy.js <listen host> <listen port> <target host> <target port> <delay ms>
 */

const [listenHost, listenPort, targetHost, targetPort, delayArg] = process.argv.slice(2);
const DELAY_MS = Number(delayArg ?? 200);
let delaying = false;
process.on('SIGUSR1', () => (delaying = true));
process.on('SIGUSR2', () => (delaying = false));

/** Sends `from`'s data on to `to` after the delay while it is on; order is kept by a per-direction queue. */
function relay(from: Socket, to: Socket, delayed: boolean): void {
  let last = 0;
  from.on('data', (chunk) => {
    if (!delayed || (!delaying && last <= Date.now())) {
      to.write(chunk);
      return;
    }
    // Not before the previous chunk: order kept even when the delay is switched off meanwhile.
    const at = Math.max(Date.now() + (delaying ? DELAY_MS : 0), last);
    last = at;
    setTimeout(() => to.write(chunk), at - Date.now());
  });
  from.on('end', () => setTimeout(() => to.end(), Math.max(0, last - Date.now())));
  from.on('error', () => to.destroy());
  from.on('close', () => setTimeout(() => to.destroy(), Math.max(0, last - Date.now()) + 10));
}

const server = createServer((client) => {
  const upstream = createConnection({ host: targetHost, port: Number(targetPort) });
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  relay(client, upstream, false);
  relay(upstream, client, true);
});
server.listen(Number(listenPort), listenHost, () =>
  process.stdout.write(`relay ${listenHost}:${listenPort} -> ${targetHost}:${targetPort} ready\n`),
);
