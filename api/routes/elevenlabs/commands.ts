import multer from '@koa/multer';
import type { Context } from 'koa';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { z } from 'zod';
import { sniffAudioFile } from '../../../audio/cloning';
import { Account } from '../../../db/models/Account';
import { CloningAttestation } from '../../../db/models/CloningAttestation';
import { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import { Synthesis } from '../../../db/models/Synthesis';
import { Voice } from '../../../db/models/Voice';
import { billingPeriod } from '../../../lib/billingPeriod';
import { CREDITS_PER_CHARACTER } from '../../../synthesis/cost';
import type { ApiDeps } from '../../deps';
import { ApiError, notFound, payloadTooLarge, unsupportedMediaType, validationError } from '../../errors';
import { rejectNul, toFieldErrors } from '../../route';
import { currentPeriod } from '../auth/usage';
import { startCloning } from '../voices/commands';
import { CloneForm } from '../voices/upload';
import { engineOf } from './speech';
import { languageName } from './presenter';
import type { HistoryQuery, VoicesV2Query } from './schema';

/** What a standing cloning attestation affirms (stored with each one, word for word). */
export const ATTESTATION_STATEMENT =
  'For every voice sample I upload without a consent field (the ElevenLabs-compatible POST /v1/voices/add), the speaker has authorized cloning their voice.';

export async function standingAttestation(deps: ApiDeps, account: Account): Promise<CloningAttestation | undefined> {
  return CloningAttestation.query(deps.db)
    .modify('ownedBy', account)
    .modify('standing')
    .orderBy('attested_at', 'desc')
    .first();
}

/** Records the account's standing attestation (a repeat keeps the first one). */
export async function recordAttestation(
  deps: ApiDeps,
  account: Account,
  client: { ip: string; userAgent: string },
): Promise<{ row: CloningAttestation; created: boolean }> {
  return deps.db.transaction(async (trx) => {
    await Account.lock(trx, account.id);
    const standing = await CloningAttestation.query(trx).modify('ownedBy', account).modify('standing').first();
    if (standing) return { row: standing, created: false };
    const row = await CloningAttestation.query(trx)
      .insert({
        id: randomUUID(),
        account_id: account.id,
        statement: ATTESTATION_STATEMENT,
        client_ip: client.ip,
        user_agent: client.userAgent.slice(0, 500),
      })
      .returning('*');
    return { row, created: true };
  });
}

/** Withdraws it: /v1/voices/add answers 403 again until a new one is recorded (voices already made stay). */
export async function withdrawAttestation(deps: ApiDeps, account: Account): Promise<void> {
  const withdrawn = await CloningAttestation.query(deps.db)
    .modify('ownedBy', account)
    .modify('standing')
    .patch({ withdrawn_at: deps.db.fn.now() as unknown as Date });
  if (withdrawn === 0) throw notFound('No standing cloning attestation.');
}

const attestationRequired = () =>
  new ApiError(
    403,
    'attestation_required',
    'Attestation required',
    'This call carries no consent field: first record a standing cloning attestation with POST /api/v1/voices/attestation/ {"attest": true} (or in the dashboard).',
  );

const MAX_SAMPLE_BYTES = 20 * 1024 * 1024;
const MAX_FILES = 25;
const upload = multer({
  storage: multer.diskStorage({
    destination: tmpdir(),
    filename: (_req, _file, done) => done(null, `openvox-upload-${randomUUID()}`),
  }),
  limits: { fileSize: MAX_SAMPLE_BYTES, files: MAX_FILES, fields: 8, fieldSize: 8 * 1024, parts: MAX_FILES + 8 },
});

async function sha256File(path: string): Promise<Buffer> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest();
}

/** `labels` arrives as a JSON string inside the form: an object of strings, `language` a BCP 47 tag. */
function labelsOf(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    throw validationError({ labels: ['Must be a JSON object of strings.'] });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw validationError({ labels: ['Must be a JSON object of strings.'] });
  const labels = Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return Object.fromEntries(labels);
}

/**
 * ElevenLabs' instant cloning, into the consented cloning workflow: the
 * account's standing attestation stands in for the consent field this call
 * lacks (403 without one). The first of `files` is the sample (the others are
 * checked as audio and not used: one sample makes one profile here).
 */
export async function addVoice(ctx: Context, deps: ApiDeps, account: Account): Promise<string> {
  if (!ctx.is('multipart/form-data'))
    throw unsupportedMediaType('Send multipart/form-data with the samples in "files".');
  if (!(await standingAttestation(deps, account))) throw attestationRequired();
  try {
    await upload.array('files', MAX_FILES)(ctx as never, async () => undefined);
  } catch (thrown) {
    const error = thrown as { code?: string; field?: string };
    if (error.code === 'LIMIT_FILE_SIZE') throw payloadTooLarge('A file is larger than 20 MiB.');
    if (error.code?.startsWith('LIMIT_'))
      throw validationError({ [error.field ?? 'files']: ['Too many or too large form fields or files.'] });
    throw validationError({ non_field_errors: ['The multipart body could not be read.'] });
  }
  const files = (ctx as unknown as { files?: Array<{ path: string; size: number }> }).files ?? [];
  try {
    const fields = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
    rejectNul(fields);
    const labels = labelsOf(fields.labels);
    const parsed = CloneForm.safeParse({
      name: fields.name,
      description: fields.description ?? '',
      ...(labels.language && { language: labels.language }),
      consent: 'true',
    });
    const errors = parsed.success ? {} : toFieldErrors(parsed.error);
    if (files.length === 0 || files.some((file) => file.size === 0))
      errors.files = [files.length ? 'A file is empty.' : 'This field is required.'];
    if (!parsed.success || Object.keys(errors).length) throw validationError(errors);
    for (const file of files)
      if (!(await sniffAudioFile(file.path)))
        throw unsupportedMediaType('A file is not WAV, MP3, OGG (Vorbis or Opus), FLAC or M4A (AAC or ALAC) audio.');
    const [sample] = files;
    const voice = await startCloning(
      deps,
      account,
      {
        voiceId: randomUUID(),
        form: parsed.data,
        filePath: sample.path,
        bytes: sample.size,
        sha256: await sha256File(sample.path),
      },
      { ip: ctx.ip, userAgent: ctx.get('User-Agent') },
    );
    return voice.id;
  } finally {
    await Promise.all(files.map((file) => rm(file.path, { force: true })));
  }
}

/** The voices an account sees: the premade catalog, then its clones (processing or ready), as ElevenLabs lists them. */
export function voicesOf(deps: ApiDeps, account: Account) {
  return Voice.query(deps.db)
    .modify('visibleTo', account)
    .whereIn('status', ['ready', 'processing'])
    .orderBy([{ column: 'category', order: 'desc' }, { column: 'sort_order' }, { column: 'created_at' }]);
}

/** `/v2/voices`: filtered, ordered, a page from `next_page_token` (an offset). */
export async function searchVoices(deps: ApiDeps, account: Account, query: z.output<typeof VoicesV2Query>) {
  const offset = query.next_page_token && /^\d{1,6}$/.test(query.next_page_token) ? Number(query.next_page_token) : 0;
  const base = () => {
    const builder = voicesOf(deps, account).modify('language', query.language);
    if (query.category) builder.where('category', query.category);
    if (query.voice_type === 'default') builder.where('category', 'premade');
    if (query.voice_type && ['personal', 'workspace', 'non-default'].includes(query.voice_type))
      builder.where('category', 'cloned');
    if (query.gender) builder.whereRaw('lower(gender) = lower(?)', [query.gender]);
    if (query.search) {
      const like = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      builder.where((inner) =>
        inner.whereILike('name', like).orWhereILike('description', like).orWhereILike('language', like),
      );
    }
    return builder;
  };
  const total = await base().resultSize();
  const ordered = base();
  if (query.sort === 'name' || query.sort === 'created_at_unix')
    ordered.clearOrder().orderBy(query.sort === 'name' ? 'name' : 'created_at', query.sort_direction ?? 'asc');
  const voices = await ordered.offset(offset).limit(query.page_size);
  const next = offset + voices.length;
  return { voices, total, next: next < total ? String(next) : undefined };
}

/** The caller's history, newest first (or oldest), after a given item. */
export async function historyOf(deps: ApiDeps, account: Account, query: z.output<typeof HistoryQuery>) {
  const builder = Synthesis.query(deps.db).modify('ownedBy', account).modify('live').modify('listed');
  if (query.voice_id) builder.where('voice_id', query.voice_id);
  if (query.date_before_unix !== undefined) builder.where('created_at', '<', new Date(query.date_before_unix * 1000));
  if (query.date_after_unix !== undefined) builder.where('created_at', '>=', new Date(query.date_after_unix * 1000));
  if (query.search) builder.whereILike('text', `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const desc = query.sort_direction === 'desc';
  if (query.start_after_history_item_id) {
    const after = await Synthesis.query(deps.db)
      .modify('ownedBy', account)
      .findById(query.start_after_history_item_id)
      .select('id', 'created_at');
    if (!after) throw validationError({ start_after_history_item_id: ['Unknown history item.'] });
    builder.whereRaw(`(created_at, id) ${desc ? '<' : '>'} (?, ?)`, [after.created_at, after.id]);
  }
  const rows = await builder
    .orderBy([
      { column: 'created_at', order: desc ? 'desc' : 'asc' },
      { column: 'id', order: desc ? 'desc' : 'asc' },
    ])
    .limit(query.page_size + 1);
  const page = rows.slice(0, query.page_size);
  const voiceIds = [...new Set(page.map((row) => row.voice_id))];
  const voices = await Voice.query(deps.db).whereIn('id', voiceIds).select('id', 'name', 'category', 'engine');
  const engines = new Map(await Promise.all(voiceIds.map(async (id) => [id, await engineOf(deps, id)] as const)));
  return { page, hasMore: rows.length > query.page_size, voices: new Map(voices.map((v) => [v.id, v])), engines };
}

/** ElevenLabs' subscription object, filled from the plan, the balance and this billing period's charges. */
export async function subscriptionOf(deps: ApiDeps, account: Account) {
  const { db } = deps;
  const { start, end } = account.email_verified_at
    ? billingPeriod(new Date(account.email_verified_at))
    : currentPeriod();
  const [plan, totals, slots, clones] = await Promise.all([
    SubscriptionPlan.query(db).findById(account.subscription_tier).throwIfNotFound(),
    Synthesis.periodTotals(db, account, start, end),
    Voice.query(db).modify('countingTowardPlan', account).resultSize(),
    Voice.query(db).modify('ownedBy', account).resultSize(),
  ]);
  const characterCount = Math.floor(totals.credits_used / CREDITS_PER_CHARACTER);
  const left = Math.max(0, Math.floor(Number(account.credit_balance) / CREDITS_PER_CHARACTER));
  const currency = plan.currency.toLowerCase();
  return {
    tier: plan.id,
    character_count: characterCount,
    character_limit: characterCount + left,
    max_credit_limit_extension: 0,
    can_extend_character_limit: false,
    allowed_to_extend_character_limit: false,
    next_character_count_reset_unix: Math.floor(end.getTime() / 1000),
    voice_slots_used: slots,
    professional_voice_slots_used: 0,
    professional_voice_slots_used_in_workspace: 0,
    voice_limit: plan.max_cloned_voices,
    voice_add_edit_counter: clones,
    professional_voice_limit: 0,
    can_extend_voice_limit: false,
    can_use_instant_voice_cloning: plan.max_cloned_voices > 0,
    can_use_professional_voice_cloning: false,
    ...((currency === 'usd' || currency === 'eur' || currency === 'gbp') && { currency }),
    current_overage: { amount: '0', currency },
    status: plan.price_cents === 0 ? ('free' as const) : ('active' as const),
  };
}

export async function isNewUser(deps: ApiDeps, account: Account): Promise<boolean> {
  return !(await Synthesis.query(deps.db).modify('ownedBy', account).select('id').first());
}

/** The installed engines as ElevenLabs models, each with the languages its voices speak. */
export async function enginesWithLanguages(deps: ApiDeps): Promise<Array<{ engine: string; languages: string[] }>> {
  const rows = await Voice.query(deps.db)
    .modify('catalog')
    .modify('live')
    .orderBy('sort_order')
    .select('engine', 'language');
  const byEngine = new Map<string, Set<string>>();
  for (const row of rows) {
    if (!row.engine) continue;
    const set = byEngine.get(row.engine) ?? new Set<string>();
    set.add(row.language);
    byEngine.set(row.engine, set);
  }
  return [...byEngine].map(([engine, languages]) => ({ engine, languages: [...languages] }));
}

export const languageEntry = (tag: string) => ({ language_id: tag, name: languageName(tag) });
