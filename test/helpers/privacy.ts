import type { ApiDeps } from '../../api/deps';
import { call } from './accounts';
import type { TestAccount } from './factories';
import { uploadConsentedSample } from './samples';
import { waitForSynthesis } from './synthesis';

/**
 * For privacy tests: how many rows of each table (every base table of the
 * schema, whatever later migrations add) mention any of `needles` anywhere in
 * the row, as PostgreSQL prints it. A table without a match is left out.
 */
export async function rowsMentioning(db: ApiDeps['db'], needles: string[]): Promise<Record<string, number>> {
  const tables: string[] = await db('information_schema.tables')
    .where({ table_schema: db.raw('current_schema()'), table_type: 'BASE TABLE' })
    .pluck('table_name');
  const found: Record<string, number> = {};
  for (const table of tables) {
    const [{ count }] = await db(table)
      .whereRaw(
        `(${needles.map(() => `position(lower(?) in lower(??::text)) > 0`).join(' or ')})`,
        needles.flatMap((needle) => [needle, table]),
      )
      .count<{ count: string }[]>({ count: '*' });
    if (Number(count) > 0) found[table] = Number(count);
  }
  return found;
}

/** A long text: long enough that its synthesis is still rendering when a test acts on it. */
const LONG_TEXT = Array.from(
  { length: 24 },
  (_, index) => `Sentence number ${index + 1} of a long text that keeps the engine busy for a while.`,
).join(' ');

/** Everything an account can own, made through the API: a project, an API key, a webhook endpoint, a cloned voice, a finished synthesis (with audio) and one still running. */
export async function seedAccount(baseUrl: string, account: TestAccount, { marker }: { marker: string }) {
  const req = (method: string, path: string, body?: unknown, token = account.access) =>
    call(baseUrl, method, `/api/v1${path}`, body, token);
  const project = await req('POST', '/projects/', { name: `Project ${marker}` });
  const apiKey = await req('POST', '/auth/api-keys/', { name: `key ${marker}` });
  const webhook = await req('POST', '/webhooks/', { url: 'https://example.com/hook', events: ['credits.low'] });
  const voice = await uploadConsentedSample(baseUrl, account.access, `Voice ${marker}`);
  const finished = await req('POST', '/tts/synthesize/', {
    text: `Finished ${marker}.`,
    voice_id: 'en-us-slt',
    project_id: project.body.id,
  });
  for (const [what, reply, status] of [
    ['project', project, 201],
    ['api key', apiKey, 201],
    ['webhook', webhook, 201],
    ['voice', voice, 202],
    ['synthesis', finished, 202],
  ] as const) {
    if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  const done = await waitForSynthesis(baseUrl, finished.body.status_url, account.access);
  if (done.status !== 'completed') throw new Error(`the finished synthesis ended ${done.status}`);
  const running = await req('POST', '/tts/synthesize/', { text: `${marker} ${LONG_TEXT}`, voice_id: 'en-us-slt' });
  if (running.status !== 202) throw new Error(`running synthesis: ${running.status} ${JSON.stringify(running.body)}`);
  return {
    projectId: project.body.id,
    apiKey: apiKey.body.key as string,
    voiceId: voice.body.id as string,
    finishedId: finished.body.id as string,
    runningId: running.body.id as string,
  };
}
