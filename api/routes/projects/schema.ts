import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';
import { codePoints, trimmedText } from '../../textFields';

/** Trimmed and NFC-normalized, so names that look the same are the same name. */
const Name = trimmedText(100)
  // The refinements after trim and NFC, as JSON Schema says them: some non-space character, 1-100 code points.
  .meta({
    description: 'The project’s name, unique per account: 1-100 characters (trimmed)',
    example: 'Audiobook, chapter 1',
    minLength: 1,
    maxLength: 100,
    pattern: '\\S',
  });

const Description = z
  .string()
  .refine((value) => codePoints(value) <= 1000, 'Must be at most 1000 characters.')
  .meta({ description: 'What the project holds, at most 1000 characters', maxLength: 1000 });

export const ProjectParams = z.object({ id: z.uuid().meta({ description: 'The project’s id' }) });
export const ProjectListQuery = PageQuery;
export const ProjectCreateBody = z.strictObject({ name: Name, description: Description.default('') });

const VoiceRef = z.string().min(1).max(64);
const MetadataField = z.string().max(1000).nullable();
const METADATA_FIELDS = [
  'title',
  'author',
  'narrator',
  'language',
  'description',
  'publisher',
  'year',
  'isbn',
] as const;
const Metadata = z
  .strictObject(
    Object.fromEntries(
      METADATA_FIELDS.map((field) => [
        field,
        MetadataField.optional().meta({
          description: `The book’s ${field} (null: unknown), at most 1000 characters`,
          maxLength: 1000,
        }),
      ]),
    ) as Record<(typeof METADATA_FIELDS)[number], z.ZodOptional<typeof MetadataField>>,
  )
  .meta({ description: 'The book’s metadata; the fields given replace the stored ones' });

const studioSettings = {
  default_voice_id: VoiceRef.nullable().optional().meta({
    description: 'The voice that reads the book (one the caller may use); null: none yet',
    example: 'en-us-joe',
    minLength: 1,
    maxLength: 64,
  }),
  heading_voice_id: VoiceRef.nullable().optional().meta({
    description: 'The voice of headings; null: the block’s or the default voice',
    minLength: 1,
    maxLength: 64,
  }),
  dialogue_voice_id: VoiceRef.nullable().optional().meta({
    description: 'The voice of quoted dialogue in paragraphs; null: read by the narrator',
    minLength: 1,
    maxLength: 64,
  }),
  language: z
    .string()
    .max(35)
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'Must be a BCP 47 language tag, e.g. en-US.')
    .optional()
    .meta({ description: 'The book’s language, a BCP 47 tag', example: 'en-US' }),
  text_normalization: z
    .enum(['auto', 'on', 'off'])
    .optional()
    .meta({ description: 'Whether numbers, dates and abbreviations are spelled out' }),
  speed: z.number().min(0.5).max(2).optional().meta({ description: 'Reading speed, 0.5-2', example: 1 }),
  output_preset: z
    .enum(['audiobook', 'standard'])
    .optional()
    .meta({ description: '`audiobook`: ACX rules (levels, room tone); `standard`: plain files' }),
  metadata: Metadata.optional(),
  speakers: z
    .record(z.string().min(1).max(100), VoiceRef)
    .optional()
    .meta({ description: 'A script’s speaker name -> the voice that reads their lines (at most 50)' }),
};
export type StudioSettings = Partial<{
  [key in keyof typeof studioSettings]: z.output<(typeof studioSettings)[key]>;
}>;

export const ProjectUpdateBody = z
  .strictObject({ name: Name.optional(), description: Description.optional(), ...studioSettings })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Give at least one field.')
  .meta({ minProperties: 1 });

export const SnapshotOut = z
  .object({
    id: z.uuid().meta({ description: 'The snapshot' }),
    project_id: z.uuid().meta({ description: 'Its project' }),
    status: z
      .enum(['queued', 'converting', 'completed', 'failed', 'canceled'])
      .meta({ description: 'Where the conversion is' }),
    progress: z.number().meta({
      description: 'How far the conversion is, 0-1: mostly the share of its estimate rendered (1 when completed)',
    }),
    chapters: z.array(z.record(z.string(), z.unknown())).meta({
      description:
        'The chapter index: `{chapter_id, title, index, start_ms, duration_ms, qc}` per chapter, in order (filled as chapters finish; `start_ms` once completed)',
    }),
    duration_ms: z.number().nullable().meta({ description: 'The book’s length, once completed' }),
    characters_rendered: z.number().meta({ description: 'Characters of the blocks rendered (not reused)' }),
    credits_charged: z.number().meta({ description: 'Credits charged: the rendered blocks’ characters, once each' }),
    blocks_rendered: z.number().meta({ description: 'Blocks rendered by this conversion' }),
    blocks_reused: z.number().meta({ description: 'Blocks whose current audio was reused (not charged)' }),
    created_at: z.string().meta({ description: 'When it was asked (ISO 8601)' }),
    completed_at: z.string().nullable().meta({ description: 'When it ended (ISO 8601), or null' }),
    error: z
      .object({
        code: z.string().meta({ description: 'A stable code' }),
        message: z.string().meta({ description: 'What went wrong' }),
      })
      .nullable()
      .meta({ description: 'Why it failed, or null' }),
  })
  .meta({ id: 'ProjectSnapshot' });

export const ProjectOut = z
  .object({
    id: z.uuid().meta({ description: 'The project’s id' }),
    name: z.string().meta({ description: 'The project’s name, unique per account' }),
    description: z.string().meta({ description: 'What the project holds (may be empty)' }),
    synthesis_count: z.number().int().meta({ description: 'Syntheses filed under the project', example: 12 }),
    created_at: z.string().meta({ description: 'When the project was created (ISO 8601, UTC)', format: 'date-time' }),
    updated_at: z
      .string()
      .meta({ description: 'When the project was last changed (ISO 8601, UTC)', format: 'date-time' }),
    default_voice_id: z.string().nullable().meta({ description: 'The voice that reads the book; null: none yet' }),
    heading_voice_id: z.string().nullable().meta({ description: 'The voice of headings; null: the default' }),
    dialogue_voice_id: z
      .string()
      .nullable()
      .meta({ description: 'The voice of quoted dialogue; null: read by the narrator' }),
    language: z.string().meta({ description: 'The book’s language, a BCP 47 tag', example: 'en-US' }),
    text_normalization: z.enum(['auto', 'on', 'off']).meta({ description: 'Normalization of numbers, dates…' }),
    speed: z.number().meta({ description: 'Reading speed, 0.5-2', example: 1 }),
    output_preset: z.enum(['audiobook', 'standard']).meta({ description: 'How the book’s files are made' }),
    metadata: z
      .object(
        Object.fromEntries(
          METADATA_FIELDS.map((field) => [
            field,
            z
              .string()
              .nullable()
              .meta({ description: `The book’s ${field}; null: unknown` }),
          ]),
        ),
      )
      .meta({ description: 'The book’s metadata (from the import, or set by PATCH)' }),
    speakers: z
      .record(z.string(), z.string())
      .meta({ description: 'A script’s speaker name -> the voice of their lines' }),
    chapter_count: z.number().int().meta({ description: 'Chapters in the project', example: 10 }),
    characters: z.number().int().meta({ description: 'Characters of all its blocks', example: 51234 }),
    credits_needed: z
      .number()
      .int()
      .meta({ description: 'What converting it all would cost: characters of blocks whose audio is not current' }),
    has_cover: z.boolean().meta({ description: 'Whether a cover image is stored (from the import)' }),
    last_conversion: SnapshotOut.nullable().meta({ description: 'The latest conversion (snapshot); null before any' }),
  })
  .meta({ id: 'Project' });
export const ProjectPage = pageSchema(ProjectOut).meta({ id: 'ProjectPage' });

// Studio: content import, chapters and blocks.

const ImportMode = z
  .enum(['replace', 'append'])
  .default('replace')
  .meta({ description: '`replace` (default): the document replaces the chapters; `append`: added after them' });

export const ContentBody = z.strictObject({
  format: z.enum(['markdown', 'text', 'html']).meta({ description: 'How `text` is written' }),
  text: z.string().min(1).meta({ description: 'The document', example: '# Chapter 1\n\nIt was a dark night.' }),
  mode: ImportMode,
});

export const ContentForm = z.strictObject({
  file: z.string().meta({ format: 'binary', description: 'EPUB, PDF, Markdown, plain text or HTML; at most 50 MiB' }),
  mode: ImportMode,
});

export const ChapterParams = ProjectParams.extend({ cid: z.uuid().meta({ description: 'The chapter’s id' }) });
export const BlockParams = ChapterParams.extend({ bid: z.uuid().meta({ description: 'The block’s id' }) });

const Title = trimmedText(500).meta({
  description: 'The chapter’s title, 1-500 characters',
  minLength: 1,
  maxLength: 500,
});

export const ChapterCreateBody = z.strictObject({
  title: Title,
  text: z
    .string()
    .optional()
    .meta({ description: 'The chapter’s text: a paragraph per run of lines between blank lines' }),
});
export const ChapterUpdateBody = z
  .strictObject({
    title: Title.optional(),
    index: z.number().int().min(0).optional().meta({ description: 'Its new place (0-based) among the chapters' }),
  })
  .refine((body) => body.title !== undefined || body.index !== undefined, 'Give at least one of title, index.')
  .meta({ minProperties: 1 });

const BlockText = z
  .string()
  .refine((value) => value.trim() !== '', 'Must not be blank.')
  .meta({ description: 'What the block says (not blank)', example: 'It was a dark and stormy night.', pattern: '\\S' });
const BlockKind = z.enum(['heading', 'paragraph']).meta({ description: 'A heading or a paragraph' });

export const BlockCreateBody = z.strictObject({
  text: BlockText,
  kind: BlockKind.default('paragraph'),
  voice_id: VoiceRef.nullable()
    .optional()
    .meta({ description: 'Its own voice; null: the project’s', minLength: 1, maxLength: 64 }),
  after_block_id: z.string().nullable().optional().meta({
    description: 'The id of the block it follows; absent: at the end, null: first',
  }),
});
export const BlockUpdateBody = z
  .strictObject({
    text: BlockText.optional(),
    kind: BlockKind.optional(),
    voice_id: VoiceRef.nullable()
      .optional()
      .meta({ description: 'Its own voice; null: the project’s', minLength: 1, maxLength: 64 }),
  })
  .refine(
    (body) => Object.values(body).some((value) => value !== undefined),
    'Give at least one of text, kind, voice_id.',
  )
  .meta({ minProperties: 1 });

const ChapterSummary = {
  id: z.uuid().meta({ description: 'The chapter’s id' }),
  index: z.number().int().meta({ description: 'Its place in the book, from 0' }),
  title: z.string().meta({ description: 'The chapter’s title' }),
  characters: z.number().int().meta({ description: 'Characters of its blocks' }),
  block_count: z.number().int().meta({ description: 'Its blocks' }),
};

export const ChapterOut = z
  .object({
    ...ChapterSummary,
    level: z.number().int().meta({ description: '0 for a top entry of the table of contents, 1 for its children…' }),
    parent_id: z.uuid().nullable().meta({ description: 'The part it is nested in; null at the top' }),
    credits_needed: z.number().int().meta({ description: 'Characters of its blocks whose audio is not current' }),
    status: z.enum(['not_converted', 'converting', 'converted', 'stale', 'failed']).meta({
      description:
        '`converting`: a running conversion includes it and has not assembled it yet; `converted`: all its blocks have current audio; `stale`: some changed since; `failed`: the latest conversion that included it failed and it is not converted',
    }),
    progress: z.number().meta({ description: 'Share of its blocks with current audio, 0-1' }),
    converted_at: z.string().nullable().meta({
      description: 'When a completed conversion last assembled it (ISO 8601, UTC); null before',
      format: 'date-time',
    }),
  })
  .meta({ id: 'ProjectChapter' });
export const ChapterPage = pageSchema(ChapterOut).meta({ id: 'ProjectChapterPage' });

export const ContentOut = ProjectOut.extend({
  chapters: z
    .array(z.object(ChapterSummary).meta({ description: 'A chapter of the project' }))
    .meta({ description: 'The project’s chapters, in order' }),
}).meta({ id: 'ProjectContent' });

export const BlockOut = z
  .object({
    id: z.uuid().meta({ description: 'The block’s id' }),
    index: z.number().int().meta({ description: 'Its place in the chapter, from 0' }),
    kind: BlockKind,
    text: z.string().meta({ description: 'What it says' }),
    voice_id: z.string().nullable().meta({ description: 'Its own voice; null: the project’s' }),
    segments: z
      .array(
        z
          .object({
            speaker: z.string().meta({ description: 'Who says it (a script’s `NAME:`)' }),
            voice_id: z.string().nullable().meta({ description: 'The voice that reads it' }),
            text: z.string().meta({ description: 'What they say' }),
          })
          .meta({ description: 'One speaker’s part' }),
      )
      .nullable()
      .meta({ description: 'A script line’s speakers, in order; null: one voice reads it' }),
    characters: z.number().int().meta({ description: 'What converting it costs' }),
    audio_current: z.boolean().meta({ description: 'Whether its audio for the current settings exists' }),
  })
  .meta({ id: 'ProjectBlock' });
export const BlockPage = pageSchema(BlockOut).meta({ id: 'ProjectBlockPage' });

// ------------------------------------------------------------ conversions

export const ConvertBody = z.strictObject({
  chapter_ids: z
    .array(z.uuid())
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: 'The chapters to convert, in any order (absent: all of them)' }),
});
export const SnapshotParams = ProjectParams.extend({
  sid: z.uuid().meta({ description: 'The snapshot (a conversion)' }),
});
export const AudioQuery = z.object({
  format: z.enum(['m4b', 'mp3', 'zip']).default('m4b').meta({
    description: 'M4B with chapters, one MP3 with ID3 chapters, or a zip of one MP3 per chapter and a playlist',
  }),
});
export const CaptionsQuery = z.object({
  format: z.enum(['srt', 'vtt']).default('vtt').meta({ description: 'SubRip or WebVTT' }),
  chapter_id: z.uuid().meta({ description: 'The chapter whose captions to give' }),
});

export const BlockRenderOut = z
  .object({
    status: z.literal('rendering').meta({ description: 'The block’s audio is being rendered' }),
    characters: z.number().meta({ description: 'What the render is charged (the block’s characters)' }),
  })
  .meta({ id: 'ProjectBlockRender' });
