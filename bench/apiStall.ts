import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp } from '../api/app';
import { createApiDeps } from '../api/deps';
import { serve } from '../api/listen';
import { migrate } from '../db/migrate';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/logger';
import { ensurePostgres } from '../scripts/stack';
import { createAccount } from '../test/helpers/factories';
import { table } from './report';
import { toPls } from '../text/lexicon';

/**
 * How long one request the API accepts can hold its event loop: the security
 * audit's attacks on the free preview (`POST /tts/normalize/`) and a PLS
 * import of the most a JSON body holds, each sent
 * alone while /healthz is polled every 5 ms, against an idle baseline in the
 * same run. Prints the longest /healthz wait and the loop's longest delay.
 * The API runs in this process (its loop is the one measured); needs
 * PostgreSQL (started or reused like the start command does).
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Attack {
  name: string;
  plan: string;
  /** Another endpoint than the preview, given the dictionary ids (a PLS import). */
  path?: (dictionaryIds: { many: string; tilde: string; one: string }) => string;
  body: (dictionaryIds: { many: string; tilde: string; one: string }) => Record<string, unknown>;
}

const ATTACKS: Attack[] = [
  { name: 'idle (baseline): a 6-character preview', plan: 'free', body: () => ({ text: 'Hello.' }) },
  {
    name: '10,000 entries starting with "a", "a " × 1000',
    plan: 'free',
    body: (d) => ({ text: 'a '.repeat(1000), pronunciation_dictionary_ids: [d.many] }),
  },
  {
    name: 'alias of 499 characters, "~" × 2000 (refused)',
    plan: 'free',
    body: (d) => ({ text: '~'.repeat(2000), pronunciation_dictionary_ids: [d.tilde] }),
  },
  {
    name: 'one entry, "a." × 2500, normalization off',
    plan: 'free',
    body: (d) => ({ text: 'a.'.repeat(2500), text_normalization: 'off', pronunciation_dictionary_ids: [d.one] }),
  },
  { name: 'en-US "a." × 2499 + "@"', plan: 'free', body: () => ({ text: `${'a.'.repeat(2499)}@` }) },
  { name: 'en-US "a-" × 2500', plan: 'free', body: () => ({ text: 'a-'.repeat(2500) }) },
  {
    name: 'de "1" + " 123" × 1249 + "x"',
    plan: 'free',
    body: () => ({ text: `1${' 123'.repeat(1249)}x`, language: 'de' }),
  },
  {
    name: 'SSML "<speak>a" + "<x/>" × 1200',
    plan: 'free',
    body: () => ({ text: `<speak>a${'<x/>'.repeat(1200)}</speak>` }),
  },
  { name: 'pro plan: en-US "a." × 19999 + "@"', plan: 'pro', body: () => ({ text: `${'a.'.repeat(19_999)}@` }) },
  {
    name: 'pro plan: 10,000 entries, "a " × 20000',
    plan: 'pro',
    body: (d) => ({ text: 'a '.repeat(19_999), pronunciation_dictionary_ids: [d.many] }),
  },
  {
    name: 'pro plan: SSML "<speak>a" + "<x/>" × 9990',
    plan: 'pro',
    body: () => ({ text: `<speak>a${'<x/>'.repeat(9990)}</speak>` }),
  },
  {
    name: 'PLS import of 10,000 entries (1 MiB, replacing)',
    plan: 'free',
    path: (d) => `/api/v1/pronunciation-dictionaries/${d.one}/import/?mode=replace`,
    body: () => ({ pls: BIG_PLS }),
  },
];

const BIG_PLS = toPls({
  language: 'en-US',
  alphabet: 'ipa',
  entries: Array.from({ length: 10_000 }, (_, i) => ({ graphemes: [`word${i}`], alias: `w${i}`.padEnd(20, 'x') })),
});

async function main() {
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    RATE_LIMIT_NORMALIZE_PER_MINUTE: '0',
  });
  await ensurePostgres(config.DATABASE_URL);
  const deps = createApiDeps(config, createLogger(config, 'bench'));
  await migrate(deps.db, config);
  const api = await serve(createApp(deps));
  const accounts = { free: await createAccount(deps), pro: await createAccount(deps) };
  await deps.db('accounts').where({ id: accounts.pro.id }).update({ subscription_tier: 'pro' });
  const dictionary = async (owner: { id: string }, entries: { graphemes: string[]; alias: string }[]) => {
    const id = randomUUID();
    await deps.db('pronunciation_dictionaries').insert({ id, account_id: owner.id, name: `bench ${id}` });
    for (let i = 0; i < entries.length; i += 1000)
      await deps
        .db('pronunciation_entries')
        .insert(entries.slice(i, i + 1000).map((entry) => ({ id: randomUUID(), dictionary_id: id, ...entry })));
    return id;
  };
  const many = Array.from({ length: 10_000 }, (_, i) => ({ graphemes: [`a b${i}`], alias: `alias ${i}` }));
  const ids = Object.fromEntries(
    await Promise.all(
      (['free', 'pro'] as const).map(async (plan) => {
        const owner = accounts[plan];
        return [
          plan,
          {
            many: await dictionary(owner, many),
            tilde: await dictionary(owner, [{ graphemes: ['~'], alias: 'x'.repeat(499) }]),
            one: await dictionary(owner, [{ graphemes: ['a'], alias: 'b' }]),
          },
        ] as const;
      }),
    ),
  );

  const rows: (string | number)[][] = [];
  let baseline = 0;
  try {
    for (const attack of ATTACKS) {
      let worstHealth = 0;
      let worstLoop = 0;
      let status = 0;
      let took = 0;
      for (let round = 0; round < ROUNDS + 1; round++) {
        const owner = accounts[attack.plan as 'free' | 'pro'];
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        let done = false;
        let longest = 0;
        const poll = (async () => {
          while (!done) {
            const sent = performance.now();
            await fetch(`${api.url}/healthz`).then((reply) => reply.arrayBuffer());
            longest = Math.max(longest, performance.now() - sent);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        })();
        await new Promise((resolve) => setTimeout(resolve, 30));
        const started = performance.now();
        const target = attack.path?.(ids[attack.plan]) ?? '/api/v1/tts/normalize/';
        const reply = await fetch(`${api.url}${target}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${owner.access}` },
          // No dictionary unless the attack names some (by default an account's all apply).
          body: JSON.stringify({
            ...(!attack.path && { pronunciation_dictionary_ids: [] }),
            ...attack.body(ids[attack.plan]),
          }),
        });
        await reply.arrayBuffer();
        const elapsed = performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 30));
        done = true;
        await poll;
        loop.disable();
        // The first round warms the dictionary cache and the code: not counted.
        if (round === 0) continue;
        worstHealth = Math.max(worstHealth, longest);
        worstLoop = Math.max(worstLoop, loop.max / 1e6);
        status = reply.status;
        took = Math.max(took, elapsed);
      }
      if (attack === ATTACKS[0]) baseline = worstHealth;
      rows.push([
        attack.name,
        status,
        took.toFixed(1),
        worstHealth.toFixed(1),
        (worstHealth / baseline).toFixed(1),
        worstLoop.toFixed(1),
      ]);
    }
  } finally {
    await api.close();
    await deps.db('accounts').whereIn('id', [accounts.free.id, accounts.pro.id]).delete();
    await deps.close();
  }
  process.stdout.write(
    `\nEach attack sent alone ${ROUNDS} times (after one warm-up) while /healthz is polled every 5 ms; worst of the rounds.\n\n`,
  );
  process.stdout.write(
    table(
      ['request', 'status', 'answer ms', 'longest /healthz ms', '÷ idle', 'longest loop delay ms'],
      rows.map((row) => row.map(String)),
    ),
  );
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
