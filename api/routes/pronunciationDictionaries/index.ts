import { PronunciationDictionary } from '../../../db/models/PronunciationDictionary';
import { PronunciationEntry } from '../../../db/models/PronunciationEntry';
import type { ApiDeps } from '../../deps';
import { jsonResponse, problemResponses } from '../../openapi';
import { NEWEST_FIRST, offsetOf, pageOf, presentPage } from '../../pagination';
import { defineRoute, type Route, inBothFamilies, familyPrefix } from '../../route';
import {
  addEntries,
  createDictionary,
  deleteDictionary,
  deleteEntry,
  dictionariesOf,
  exportPls,
  findDictionary,
  importPls,
  lexiconEntryOf,
  updateDictionary,
} from './commands';
import { presentDictionary, presentEntry } from './presenter';
import {
  DictionaryCreateBody,
  DictionaryListQuery,
  DictionaryOut,
  DictionaryPage,
  DictionaryParams,
  DictionaryUpdateBody,
  EntriesOut,
  EntryCreateBody,
  EntryListQuery,
  EntryPage,
  EntryParams,
  ImportBody,
  ImportQuery,
} from './schema';

const TAGS = ['Pronunciation dictionaries'];
const one = jsonResponse('The dictionary', DictionaryOut);

export function pronunciationDictionaryRoutes({ config, db }: ApiDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies('pronunciation-dictionaries/'),
      summary: "The caller's pronunciation dictionaries, newest first",
      tags: TAGS,
      auth: true,
      query: DictionaryListQuery,
      responses: { 200: jsonResponse('A page of dictionaries', DictionaryPage), ...problemResponses(400, 401) },
      async handler(ctx, { account, query }) {
        const [count, rows] = await pageOf(
          dictionariesOf(db, account).orderBy(NEWEST_FIRST),
          query,
          PronunciationDictionary.query(db).modify('ownedBy', account),
        );
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, rows.map(presentDictionary));
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('pronunciation-dictionaries/'),
      summary: 'Create a pronunciation dictionary (at most 20 per account)',
      tags: TAGS,
      auth: true,
      body: DictionaryCreateBody,
      responses: { 201: jsonResponse('Created', DictionaryOut), ...problemResponses(400, 401, 409) },
      async handler(ctx, { account, body }, family) {
        const dictionary = await createDictionary(db, account, body);
        ctx.status = 201;
        ctx.set('Location', `${familyPrefix(family)}/pronunciation-dictionaries/${dictionary.id}/`);
        ctx.body = presentDictionary(dictionary);
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/'),
      summary: 'One pronunciation dictionary, with its number of entries',
      tags: TAGS,
      auth: true,
      params: DictionaryParams,
      responses: { 200: one, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        ctx.body = presentDictionary(await findDictionary(db, account, params.id));
      },
    }),
    defineRoute({
      method: 'patch',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/'),
      summary: 'Rename a pronunciation dictionary, or change its language or project',
      tags: TAGS,
      auth: true,
      params: DictionaryParams,
      body: DictionaryUpdateBody,
      responses: { 200: one, ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, body }) {
        ctx.body = presentDictionary(await updateDictionary(db, account, params.id, body));
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/'),
      summary: 'Delete a pronunciation dictionary and its entries',
      tags: TAGS,
      auth: true,
      params: DictionaryParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        await deleteDictionary(db, account, params.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/entries/'),
      summary: "A dictionary's entries, oldest first (the order they were added)",
      tags: TAGS,
      auth: true,
      params: DictionaryParams,
      query: EntryListQuery,
      responses: { 200: jsonResponse('A page of entries', EntryPage), ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, query }) {
        const dictionary = await findDictionary(db, account, params.id);
        const rows = await PronunciationEntry.query(db)
          .where({ dictionary_id: dictionary.id })
          .orderBy([{ column: 'created_at' }, { column: 'id' }])
          .offset(offsetOf(query))
          .limit(query.page_size);
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, dictionary.entry_count ?? 0, rows.map(presentEntry));
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/entries/'),
      summary: 'Add an entry, or several (`{entries: [...]}`); at most 10,000 per dictionary',
      tags: TAGS,
      auth: true,
      params: DictionaryParams,
      body: EntryCreateBody,
      responses: { 201: jsonResponse('The entries added', EntriesOut), ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, body }) {
        const entries = body.entries ?? [body];
        const { added, count } = await addEntries(
          db,
          account,
          params.id,
          entries.map(lexiconEntryOf),
          body.entries ? 'entries' : 'grapheme',
        );
        ctx.status = 201;
        ctx.body = { results: added.map(presentEntry), entry_count: count };
      },
    }),
    defineRoute({
      method: 'delete',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/entries/{entry_id}/'),
      summary: 'Remove one entry',
      tags: TAGS,
      auth: true,
      params: EntryParams,
      responses: { 204: { description: 'Deleted' }, ...problemResponses(401, 404) },
      async handler(ctx, { account, params }) {
        await deleteEntry(db, account, params.id, params.entry_id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/import/'),
      summary: 'Read a PLS 1.0 document into the dictionary (`?mode=append` by default, or `replace`)',
      tags: TAGS,
      auth: true,
      params: DictionaryParams,
      query: ImportQuery,
      body: ImportBody,
      responses: { 200: one, ...problemResponses(400, 401, 404) },
      async handler(ctx, { account, params, query, body }) {
        ctx.body = presentDictionary(await importPls(db, account, params.id, body.pls, query.mode));
      },
    }),
    defineRoute({
      method: 'get',
      paths: inBothFamilies('pronunciation-dictionaries/{id}/export/'),
      summary: 'The dictionary as a PLS 1.0 document (application/pls+xml)',
      tags: TAGS,
      auth: true,
      params: DictionaryParams,
      responses: {
        200: { description: 'A PLS 1.0 document', content: { 'application/pls+xml': { schema: { type: 'string' } } } },
        ...problemResponses(401, 404),
      },
      async handler(ctx, { account, params }) {
        const { dictionary, pls } = await exportPls(db, account, params.id);
        ctx.type = 'application/pls+xml; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${dictionary.id}.pls"`);
        ctx.body = pls;
      },
    }),
  ];
}
