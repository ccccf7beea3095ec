import type { z } from 'zod';
import type { ApiKeyCreated, ApiKeyPage } from '../api/routes/apiKeys/schema';
import type { Profile, TokenPair } from '../api/routes/auth/schema';
import type { VoiceList as OpenAiVoiceList } from '../api/routes/openai/schema';
import type { ChapterPage, ContentOut, ProjectOut, ProjectPage, SnapshotOut } from '../api/routes/projects/schema';
import type { HistoryPage, SynthesisStatus } from '../api/routes/tts/schema';
import type { VoiceOut, VoicePage } from '../api/routes/voices/schema';

/**
 * The JSON the API answers the CLI, typed by the zod schemas that validate and document it (types only: the CLI
 * loads nothing of the API), so a field the API renames breaks the CLI's typecheck, not its users.
 */

export type ApiKeyPageJson = z.output<typeof ApiKeyPage>;
export type ApiKeyJson = ApiKeyPageJson['results'][number];
export type ApiKeyCreatedJson = z.output<typeof ApiKeyCreated>;
export type TokenPairJson = z.output<typeof TokenPair>;
export type ProfileJson = z.output<typeof Profile>;
export type SynthesisStatusJson = z.output<typeof SynthesisStatus>;
export type HistoryPageJson = z.output<typeof HistoryPage>;
export type VoiceJson = z.output<typeof VoiceOut>;
export type VoicePageJson = z.output<typeof VoicePage>;
export type OpenAiVoiceListJson = z.output<typeof OpenAiVoiceList>;
export type OpenAiVoiceJson = OpenAiVoiceListJson['data'][number];
export type HistoryEntryJson = HistoryPageJson['results'][number];
export type ProjectJson = z.output<typeof ProjectOut>;
export type ProjectPageJson = z.output<typeof ProjectPage>;
export type ContentJson = z.output<typeof ContentOut>;
export type ChapterPageJson = z.output<typeof ChapterPage>;
export type ChapterJson = ChapterPageJson['results'][number];
export type SnapshotJson = z.output<typeof SnapshotOut>;
