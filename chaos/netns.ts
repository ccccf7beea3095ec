import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Linux network namespaces for the multi-node harness: a "data" namespace
 * holding a bridge, one namespace per node joined to that bridge by a veth
 * link, and one veth from the host's own namespace to the bridge (the
 * harness's clients and checks). Every address is in one /24 that exists
 * only on these links. Everything made here is recorded and removed by
 * `teardown()`; `leftovers()` says what is still there.
 */

const exec = promisify(execFile);

export async function sh(command: string, args: string[]): Promise<string> {
  const { stdout } = await exec(command, args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

export interface NodeNs {
  name: string;
  /** The namespace's name for `ip netns`. */
  ns: string;
  address: string;
}

export interface Topology {
  prefix: string;
  subnet: string;
  data: { ns: string; address: string };
  nodes: NodeNs[];
  /** The host side's address on the bridge (clients, checks, the webhook receiver). */
  hostAddress: string;
  /** Runs `command` inside a namespace, its output appended to `<logDir>/<logName>.log`. */
  spawnIn(ns: string, logName: string, command: string, args: string[], env?: NodeJS.ProcessEnv): ChildProcess;
  /** Processes in a namespace now. */
  pidsIn(ns: string): Promise<number[]>;
  /** SIGKILL to every process in the namespace at once; resolves when none is left. */
  killAllIn(ns: string): Promise<number>;
  linkDown(node: NodeNs): Promise<void>;
  linkUp(node: NodeNs): Promise<void>;
  teardown(): Promise<void>;
  leftovers(): Promise<string[]>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function createTopology(nodeCount: number, logDir: string): Promise<Topology> {
  const id = process.pid;
  const prefix = `ovx${id}`;
  // A /24 of its own per run, inside 10.213.0.0/16: two harnesses at once do not collide.
  const subnet = `10.213.${id % 250}`;
  const dataNs = `${prefix}-data`;
  const nodes: NodeNs[] = Array.from({ length: nodeCount }, (_, index) => ({
    name: `node${index + 1}`,
    ns: `${prefix}-n${index + 1}`,
    address: `${subnet}.${11 + index}`,
  }));
  const hostLink = `${prefix}h`;
  const namespaces = [dataNs, ...nodes.map((node) => node.ns)];
  const ipIn = (ns: string, ...args: string[]) => sh('ip', ['-n', ns, ...args]);

  const pidsIn = async (ns: string) =>
    (await sh('ip', ['netns', 'pids', ns]).catch(() => '')).split('\n').filter(Boolean).map(Number);

  const topology: Topology = {
    prefix,
    subnet,
    data: { ns: dataNs, address: `${subnet}.1` },
    nodes,
    hostAddress: `${subnet}.254`,
    spawnIn(ns, logName, command, args, env = {}) {
      const log = openSync(path.join(logDir, `${logName}.log`), 'a');
      return spawn('ip', ['netns', 'exec', ns, command, ...args], {
        stdio: ['ignore', log, log],
        env: { ...process.env, ...env },
        detached: true,
      });
    },
    pidsIn,
    async killAllIn(ns) {
      const pids = await pidsIn(ns);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await pidsIn(ns)).length) await sleep(100);
      return pids.length;
    },
    linkDown: async (node) => void (await ipIn(node.ns, 'link', 'set', 'eth0', 'down')),
    linkUp: async (node) => void (await ipIn(node.ns, 'link', 'set', 'eth0', 'up')),
    async teardown() {
      // Graceful first (PostgreSQL, MinIO and Temporal flush), then whatever is left is killed.
      for (const ns of namespaces) for (const pid of await pidsIn(ns)) if (alive(pid)) process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && (await Promise.all(namespaces.map(pidsIn))).some((pids) => pids.length))
        await sleep(200);
      for (const ns of namespaces) await topology.killAllIn(ns);
      for (const ns of namespaces) await sh('ip', ['netns', 'del', ns]).catch(() => undefined);
      // The host end goes with its peer in the data namespace; deleted here in case the namespace never got it.
      await sh('ip', ['link', 'del', hostLink]).catch(() => undefined);
    },
    async leftovers() {
      const found: string[] = [];
      const listed = await sh('ip', ['netns', 'list']);
      for (const line of listed.split('\n')) if (line.startsWith(prefix)) found.push(`namespace ${line.split(' ')[0]}`);
      const links = await sh('ip', ['-o', 'link', 'show']);
      for (const line of links.split('\n')) if (line.includes(prefix)) found.push(`link ${line.split(':')[1]?.trim()}`);
      const addresses = await sh('ip', ['-o', 'addr', 'show']);
      for (const line of addresses.split('\n')) if (line.includes(` ${subnet}.`)) found.push(`address ${line.trim()}`);
      return found;
    },
  };

  try {
    for (const ns of namespaces) {
      await sh('ip', ['netns', 'add', ns]);
      await ipIn(ns, 'link', 'set', 'lo', 'up');
    }
    await ipIn(dataNs, 'link', 'add', 'br0', 'type', 'bridge');
    await ipIn(dataNs, 'addr', 'add', `${topology.data.address}/24`, 'dev', 'br0');
    await ipIn(dataNs, 'link', 'set', 'br0', 'up');
    const attach = async (outside: string, inside: string, ns: string | null, insideName: string, address: string) => {
      await sh('ip', ['link', 'add', outside, 'type', 'veth', 'peer', 'name', inside]);
      await sh('ip', ['link', 'set', outside, 'netns', dataNs]);
      await ipIn(dataNs, 'link', 'set', outside, 'master', 'br0');
      await ipIn(dataNs, 'link', 'set', outside, 'up');
      if (ns) {
        await sh('ip', ['link', 'set', inside, 'netns', ns]);
        await ipIn(ns, 'link', 'set', inside, 'name', insideName);
        await ipIn(ns, 'addr', 'add', `${address}/24`, 'dev', insideName);
        await ipIn(ns, 'link', 'set', insideName, 'up');
      } else {
        await sh('ip', ['addr', 'add', `${address}/24`, 'dev', inside]);
        await sh('ip', ['link', 'set', inside, 'up']);
      }
    };
    for (const [index, node] of nodes.entries())
      await attach(`${prefix}b${index + 1}`, `${prefix}n${index + 1}`, node.ns, 'eth0', node.address);
    await attach(`${prefix}bh`, hostLink, null, hostLink, topology.hostAddress);
  } catch (error) {
    await topology.teardown();
    throw error;
  }
  return topology;
}
