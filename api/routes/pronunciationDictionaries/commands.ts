import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { raw } from 'objection';
import { Account } from '../../../db/models/Account';
import { Project } from '../../../db/models/Project';
import { PronunciationDictionary } from '../../../db/models/PronunciationDictionary';
import { PronunciationEntry, toLexiconEntry } from '../../../db/models/PronunciationEntry';
import { MAX_ENTRIES, toPls, type LexiconEntry } from '../../../text/lexicon';
import { parsePlsOnThread } from '../../text/thread';
import type { Db } from '../../../db/knex';
import { conflict, notFound, validationError } from '../../errors';
import { MAX_DICTIONARIES, type EntryIn } from './schema';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's dictionaries, each with its number of entries. */
export function dictionariesOf(db: Db, account: Account) {
  return PronunciationDictionary.query(db)
    .modify('ownedBy', account)
    .select(
      'pronunciation_dictionaries.*',
      raw(
        '(select count(*) from pronunciation_entries e where e.dictionary_id = pronunciation_dictionaries.id)::int as entry_count',
      ),
    );
}

/** Another account's dictionary is indistinguishable from a missing one. */
export async function findDictionary(db: Db, account: Account, id: string): Promise<PronunciationDictionary> {
  const dictionary = await dictionariesOf(db, account).findOne({ 'pronunciation_dictionaries.id': id });
  if (!dictionary) throw notFound('No such pronunciation dictionary.');
  return dictionary;
}

/** Locks the caller's dictionary row (entry writes count against MAX_ENTRIES under it). */
async function lockDictionary(trx: Knex.Transaction, account: Account, id: string): Promise<number> {
  const dictionary = await PronunciationDictionary.query(trx)
    .modify('ownedBy', account)
    .findById(id)
    .forUpdate()
    .select('id');
  if (!dictionary) throw notFound('No such pronunciation dictionary.');
  return PronunciationEntry.query(trx).where({ dictionary_id: id }).resultSize();
}

async function checkProject(db: Db, account: Account, projectId: string | null | undefined): Promise<void> {
  if (projectId === undefined || projectId === null) return;
  const project = UUID.test(projectId)
    ? await Project.query(db).modify('ownedBy', account).findById(projectId).select('id')
    : null;
  if (!project) throw validationError({ project_id: ['Unknown project.'] });
}

const tooManyEntries = (field: string, have: number, adding: number) =>
  validationError({
    [field]: [`A dictionary holds at most ${MAX_ENTRIES} entries (it has ${have}, this adds ${adding}).`],
  });

const entryRow = (dictionaryId: string, entry: LexiconEntry) => ({
  id: randomUUID(),
  dictionary_id: dictionaryId,
  graphemes: entry.graphemes,
  alias: entry.alias ?? null,
  phoneme: entry.phoneme ?? null,
  case_sensitive: entry.caseSensitive ?? false,
});

export const lexiconEntryOf = (entry: EntryIn): LexiconEntry => ({
  graphemes: entry.graphemes ?? [entry.grapheme!],
  ...(entry.alias !== undefined && { alias: entry.alias }),
  ...(entry.phoneme !== undefined && { phoneme: entry.phoneme }),
  ...(entry.case_sensitive && { caseSensitive: true }),
});

/** Inserts in order (created_at is the insert's time: ties keep the id order of the batch, which is the given order via a per-row offset). */
async function insertEntries(
  trx: Knex.Transaction,
  dictionaryId: string,
  entries: readonly LexiconEntry[],
): Promise<PronunciationEntry[]> {
  if (entries.length === 0) return [];
  const now = Date.now();
  const inserted: PronunciationEntry[] = [];
  // Batches of 1000 rows: a PLS import of 10,000 entries stays under PostgreSQL's parameter limit.
  for (let from = 0; from < entries.length; from += 1000) {
    const rows = entries
      .slice(from, from + 1000)
      .map((entry, index) => ({ ...entryRow(dictionaryId, entry), created_at: new Date(now + from + index) }));
    inserted.push(
      ...((await PronunciationEntry.query(trx).insert(rows).returning('*')) as unknown as PronunciationEntry[]),
    );
  }
  await PronunciationDictionary.query(trx).patch({ updated_at: new Date() }).where({ id: dictionaryId });
  return inserted;
}

export async function createDictionary(
  db: Db,
  account: Account,
  props: { name: string; language: string; project_id?: string | null; entries: EntryIn[] },
): Promise<PronunciationDictionary> {
  await checkProject(db, account, props.project_id);
  const id = randomUUID();
  await db.transaction(async (trx) => {
    // The account row serializes creates: two at once cannot both take the 20th place.
    await Account.lock(trx, account.id);
    const count = await PronunciationDictionary.query(trx).modify('ownedBy', account).resultSize();
    if (count >= MAX_DICTIONARIES)
      throw conflict(`An account holds at most ${MAX_DICTIONARIES} pronunciation dictionaries; delete one first.`);
    await PronunciationDictionary.query(trx).insert({
      id,
      account_id: account.id,
      project_id: props.project_id ?? null,
      name: props.name,
      language: props.language,
    });
    await insertEntries(trx, id, props.entries.map(lexiconEntryOf));
  });
  return findDictionary(db, account, id);
}

export async function updateDictionary(
  db: Db,
  account: Account,
  id: string,
  changes: { name?: string; language?: string; project_id?: string | null },
): Promise<PronunciationDictionary> {
  await findDictionary(db, account, id);
  await checkProject(db, account, changes.project_id);
  await PronunciationDictionary.query(db)
    .modify('ownedBy', account)
    .patch({ ...changes, updated_at: new Date() })
    .where({ id });
  return findDictionary(db, account, id);
}

export async function deleteDictionary(db: Db, account: Account, id: string): Promise<void> {
  const deleted = await PronunciationDictionary.query(db).modify('ownedBy', account).delete().where({ id });
  if (!deleted) throw notFound('No such pronunciation dictionary.');
}

export async function addEntries(
  db: Db,
  account: Account,
  id: string,
  entries: LexiconEntry[],
  field: string,
): Promise<{ added: PronunciationEntry[]; count: number }> {
  return db.transaction(async (trx) => {
    const have = await lockDictionary(trx, account, id);
    if (have + entries.length > MAX_ENTRIES) throw tooManyEntries(field, have, entries.length);
    const added = await insertEntries(trx, id, entries);
    return { added, count: have + added.length };
  });
}

export async function deleteEntry(db: Db, account: Account, id: string, entryId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await lockDictionary(trx, account, id);
    const deleted = await PronunciationEntry.query(trx).delete().where({ id: entryId, dictionary_id: id });
    if (!deleted) throw notFound('No such entry.');
    await PronunciationDictionary.query(trx).patch({ updated_at: new Date() }).where({ id });
  });
}

/** Reads a PLS document into the dictionary: its entries after the existing ones, or instead of them. */
export async function importPls(
  db: Db,
  account: Account,
  id: string,
  xml: string,
  mode: 'replace' | 'append',
): Promise<PronunciationDictionary> {
  await findDictionary(db, account, id);
  const parsed = await parsePlsOnThread(xml);
  if ('invalid' in parsed) throw validationError({ pls: [`Not a valid PLS document: ${parsed.invalid}.`] });
  const { entries } = parsed;
  await db.transaction(async (trx) => {
    let have = await lockDictionary(trx, account, id);
    if (mode === 'replace') {
      await PronunciationEntry.query(trx).delete().where({ dictionary_id: id });
      have = 0;
    }
    if (have + entries.length > MAX_ENTRIES) throw tooManyEntries('pls', have, entries.length);
    await insertEntries(trx, id, entries);
    if (mode === 'replace') await PronunciationDictionary.query(trx).patch({ updated_at: new Date() }).where({ id });
  });
  return findDictionary(db, account, id);
}

/** The dictionary as a PLS 1.0 document (case sensitivity has no PLS form and is not written). */
export async function exportPls(
  db: Db,
  account: Account,
  id: string,
): Promise<{ dictionary: PronunciationDictionary; pls: string }> {
  const dictionary = await findDictionary(db, account, id);
  const rows = await PronunciationEntry.query(db)
    .where({ dictionary_id: id })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return {
    dictionary,
    pls: toPls({ language: dictionary.language, alphabet: 'ipa', entries: rows.map(toLexiconEntry) }),
  };
}

/**
 * The dictionaries a synthesis (or a preview) uses, checked and in the order
 * they apply: the given ids (each must be the caller's: else 400 on
 * `pronunciation_dictionary_ids`), or by default the caller's account-wide
 * dictionaries (no project) and, with a project, that project's, the
 * project's first, each oldest first.
 */
export async function resolveDictionaryIds(
  db: Db,
  account: Account,
  ids: readonly string[] | undefined,
  projectId: string | null | undefined,
): Promise<string[]> {
  if (ids !== undefined) {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const valid = unique.every((id) => UUID.test(id));
    const found = valid
      ? await PronunciationDictionary.query(db).modify('ownedBy', account).whereIn('id', unique).select('id')
      : [];
    const own = new Set(found.map((row) => row.id));
    const unknown = unique.filter((id) => !own.has(id));
    if (unknown.length)
      throw validationError({ pronunciation_dictionary_ids: [`Unknown pronunciation dictionary: ${unknown[0]}.`] });
    return unique;
  }
  return PronunciationDictionary.defaultIds(db, account.id, projectId ?? null);
}
