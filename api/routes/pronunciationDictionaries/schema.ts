import { z } from 'zod';
import { ipaProblem } from '../../../text/ipa';
import { MAX_ENTRIES, MAX_GRAPHEME, MAX_PRONUNCIATION } from '../../../text/lexicon';
import { PageQuery, pageSchema } from '../../pagination';
import { trimmedText } from '../../textFields';

/** Most dictionaries one account holds. */
export const MAX_DICTIONARIES = 20;
/** Most written forms one entry matches. */
const MAX_GRAPHEMES_PER_ENTRY = 10;
/** Most entries one POST adds (a JSON body holds at most 1000 members; PLS import adds more). */
export const MAX_BATCH = 200;

const Name = trimmedText(100).meta({
  description: 'The dictionary’s name: 1-100 characters (trimmed)',
  example: 'Product names',
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
});

const Language = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'Must be a language tag such as en-US or de.')
  .max(35, 'Must be a language tag such as en-US or de.')
  .meta({
    description:
      'A BCP 47 language tag, written as the PLS document’s xml:lang (default en-US); every chosen dictionary applies whatever the voice’s language',
    example: 'en-US',
  });

const ProjectId = z.string().max(64, 'Unknown project.').nullable().meta({
  description:
    'One of your projects’ ids: the dictionary applies by default to that project’s syntheses only; null for all of yours',
  maxLength: 64,
});

// UTF-16 units, as text/lexicon counts its limit.
const Grapheme = trimmedText(MAX_GRAPHEME, (value) => value.length).meta({
  description: `A written form to match (whole words, case-insensitive unless case_sensitive): 1-${MAX_GRAPHEME} characters`,
  example: 'OpenVox',
  maxLength: MAX_GRAPHEME,
});

const Alias = z
  .string()
  .trim()
  .min(1, 'Must not be empty.')
  .max(MAX_PRONUNCIATION, `Must be at most ${MAX_PRONUNCIATION} characters.`)
  .meta({
    description: `What to say instead, as written (1-${MAX_PRONUNCIATION} characters)`,
    example: 'open voice box',
  });

const Phoneme = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const problem = ipaProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `Must be IPA: it ${problem}.` });
  })
  .meta({
    description: `How to say it, in IPA (1-${MAX_PRONUNCIATION} characters). Engines do not take phonemes yet: an entry with a phoneme and no alias is said as written`,
    example: 'ˈoʊpənvɑks',
    minLength: 1,
    maxLength: MAX_PRONUNCIATION,
    pattern: '\\S',
  });

const EntryShape = {
  grapheme: Grapheme.optional(),
  graphemes: z
    .array(Grapheme)
    .min(1, 'Give at least one grapheme.')
    .max(MAX_GRAPHEMES_PER_ENTRY, `At most ${MAX_GRAPHEMES_PER_ENTRY} graphemes.`)
    .optional()
    .meta({ description: `Several written forms (at most ${MAX_GRAPHEMES_PER_ENTRY}), instead of \`grapheme\`` }),
  alias: Alias.optional(),
  phoneme: Phoneme.optional(),
  alphabet: z.literal('ipa', 'Must be ipa.').optional().meta({ description: 'The phoneme’s alphabet: only `ipa`' }),
  case_sensitive: z.boolean().optional().meta({ description: 'Match the case exactly (default false: any case)' }),
};

type EntryFields = { grapheme?: string; graphemes?: string[]; alias?: string; phoneme?: string };
function checkEntry(entry: EntryFields, ctx: z.core.$RefinementCtx, path: PropertyKey[] = []) {
  if ((entry.grapheme === undefined) === (entry.graphemes === undefined))
    ctx.addIssue({ code: 'custom', path: [...path, 'grapheme'], message: 'Give grapheme or graphemes (one of them).' });
  if (entry.alias === undefined && entry.phoneme === undefined)
    ctx.addIssue({ code: 'custom', path: [...path, 'alias'], message: 'Give an alias, a phoneme or both.' });
}

export const EntryIn = z
  .strictObject(EntryShape)
  .superRefine((entry, ctx) => checkEntry(entry, ctx))
  .meta({ id: 'PronunciationEntryIn', minProperties: 1 });
export type EntryIn = z.output<typeof EntryIn>;

const Entries = z
  .array(EntryIn)
  .max(MAX_BATCH, `At most ${MAX_BATCH} entries per request (import a PLS document for more).`);

export const DictionaryParams = z.object({ id: z.uuid().meta({ description: 'The dictionary’s id' }) });
export const EntryParams = DictionaryParams.extend({ entry_id: z.uuid().meta({ description: 'The entry’s id' }) });
export const DictionaryListQuery = PageQuery;
export const EntryListQuery = PageQuery;

export const DictionaryCreateBody = z.strictObject({
  name: Name,
  language: Language.default('en-US'),
  project_id: ProjectId.optional(),
  entries: Entries.default([]).meta({ description: `Entries to start with (at most ${MAX_BATCH})` }),
});
export const DictionaryUpdateBody = z
  .strictObject({ name: Name.optional(), language: Language.optional(), project_id: ProjectId.optional() })
  .refine(
    (body) => body.name !== undefined || body.language !== undefined || body.project_id !== undefined,
    'Give at least one of name, language, project_id.',
  )
  .meta({ minProperties: 1 });

/** One entry, or `{entries: [...]}`. */
export const EntryCreateBody = z
  .strictObject({
    ...EntryShape,
    entries: Entries.optional().meta({ description: `Several entries at once (at most ${MAX_BATCH}), instead of one` }),
  })
  .superRefine((body, ctx) => {
    if (body.entries === undefined) checkEntry(body, ctx);
    else if (Object.entries(body).some(([key, value]) => key !== 'entries' && value !== undefined))
      ctx.addIssue({ code: 'custom', path: ['entries'], message: 'Give one entry or entries, not both.' });
  })
  .meta({ minProperties: 1 });
export type EntryCreateBody = z.output<typeof EntryCreateBody>;

export const ImportQuery = z.object({
  mode: z.enum(['replace', 'append'], 'Must be one of: replace, append.').default('append').meta({
    description: '`append` (default) adds the document’s entries; `replace` removes the dictionary’s entries first',
  }),
});
export const ImportBody = z.strictObject({
  pls: z.string().min(1, 'This field is required.').meta({
    description: 'A W3C PLS 1.0 document (alphabet="ipa"), as a string; the body is at most 1 MiB',
    example:
      '<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US"><lexeme><grapheme>OpenVox</grapheme><alias>open voice box</alias></lexeme></lexicon>',
  }),
});

export const EntryOut = z
  .object({
    id: z.uuid().meta({ description: 'The entry’s id' }),
    graphemes: z.array(z.string()).meta({ description: 'The written forms it matches' }),
    alias: z.string().nullable().meta({ description: 'What is said instead, or null' }),
    phoneme: z.string().nullable().meta({ description: 'IPA, or null' }),
    alphabet: z.literal('ipa').nullable().meta({ description: '`ipa` when there is a phoneme, else null' }),
    case_sensitive: z.boolean().meta({ description: 'Whether the case must match' }),
    created_at: z.string().meta({ description: 'When it was added (ISO 8601, UTC)', format: 'date-time' }),
  })
  .meta({ id: 'PronunciationEntry' });
export const EntryPage = pageSchema(EntryOut).meta({ id: 'PronunciationEntryPage' });
export const EntriesOut = z
  .object({
    results: z.array(EntryOut).meta({ description: 'The entries added, in order' }),
    entry_count: z.number().int().meta({ description: 'Entries the dictionary holds now' }),
  })
  .meta({ id: 'PronunciationEntriesAdded' });

export const DictionaryOut = z
  .object({
    id: z.uuid().meta({ description: 'The dictionary’s id' }),
    name: z.string().meta({ description: 'The dictionary’s name' }),
    language: z.string().meta({ description: 'BCP 47 tag' }),
    project_id: z.uuid().nullable().meta({ description: 'The project it belongs to, or null (account-wide)' }),
    entry_count: z
      .number()
      .int()
      .meta({ description: `Entries it holds (at most ${MAX_ENTRIES})`, example: 12 }),
    created_at: z.string().meta({ description: 'When it was created (ISO 8601, UTC)', format: 'date-time' }),
    updated_at: z
      .string()
      .meta({ description: 'When it or its entries last changed (ISO 8601, UTC)', format: 'date-time' }),
  })
  .meta({ id: 'PronunciationDictionary' });
export const DictionaryPage = pageSchema(DictionaryOut).meta({ id: 'PronunciationDictionaryPage' });
