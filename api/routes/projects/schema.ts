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
export const ProjectUpdateBody = z
  .strictObject({ name: Name.optional(), description: Description.optional() })
  .refine(
    (body) => body.name !== undefined || body.description !== undefined,
    'Give at least one of name, description.',
  )
  .meta({ minProperties: 1 });

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
  })
  .meta({ id: 'Project' });
export const ProjectPage = pageSchema(ProjectOut).meta({ id: 'ProjectPage' });
