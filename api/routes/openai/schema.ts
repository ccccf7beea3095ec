import { z } from 'zod';
import type { Emotion, OutputFormat } from '../../../audio/prosody';
import { PronunciationDictionaryIdsField, TextNormalizationField, TextTypeField } from '../tts/schema';
import { COST_RULE } from '../../../synthesis/cost';

/**
 * OpenAI's speech request, and how each of its values maps onto what this
 * service does (docs/api.md, "OpenAI-compatible speech"; the voice names in
 * ./voices.ts). Change the code and the docs together.
 */

/** OpenAI's model names and ours; they all run the same pipeline (the voice decides the engine). */
export const MODELS = [
  { id: 'tts-1', description: "OpenAI's name; the service's engines, chosen by voice." },
  { id: 'tts-1-hd', description: "OpenAI's name; the same engines as tts-1 (the voice decides the quality)." },
  { id: 'gpt-4o-mini-tts', description: "OpenAI's name; `instructions` map to an emotion preset." },
  { id: 'openvox', description: "This service's own name for its pipeline." },
] as const;
const MODEL_IDS = MODELS.map((model) => model.id) as [string, ...string[]];

const RESPONSE_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

/**
 * The format the history entry keeps: the same codec where the service
 * stores it, else the nearest (AAC → MP3, PCM → WAV). The stream itself is
 * always in the requested format.
 */
export const HISTORY_FORMAT: Readonly<Record<ResponseFormat, OutputFormat>> = {
  mp3: 'mp3',
  opus: 'ogg',
  aac: 'mp3',
  flac: 'flac',
  wav: 'wav',
  pcm: 'wav',
};

const SPEED_LIMITS = { openai: { min: 0.25, max: 4 }, engine: { min: 0.5, max: 2 } } as const;

/** OpenAI accepts 0.25-4.0; the pipeline renders 0.5-2.0 (tempo, pitch kept): inside that range exactly, outside it clamped. */
export const mapSpeed = (speed: number) => Math.min(SPEED_LIMITS.engine.max, Math.max(SPEED_LIMITS.engine.min, speed));

/** Words in `instructions` that clearly ask for one of the emotion presets. */
const EMOTION_WORDS: ReadonlyArray<[Emotion, RegExp]> = [
  ['happy', /\b(happy|happily|cheerful(ly)?|joyful(ly)?|upbeat|delighted|friendly)\b/i],
  ['sad', /\b(sad|sadly|melanchol(y|ic)|somber|sombre|sorrowful|gloomy|mournful|tearful)\b/i],
  ['angry', /\b(angry|angrily|furious(ly)?|irritated|annoyed|enraged|mad)\b/i],
  ['calm', /\b(calm(ly)?|soothing(ly)?|relaxed|gentle|gently|soft(ly)?|serene|peaceful(ly)?)\b/i],
  ['excited', /\b(excited(ly)?|enthusiastic(ally)?|energetic(ally)?|thrilled|exuberant)\b/i],
];

/**
 * The emotion `instructions` ask for when exactly one preset matches
 * (e.g. "Speak in a cheerful tone" → happy); otherwise neutral: the
 * instructions are accepted and ignored.
 */
export function emotionOf(instructions: string | undefined): Emotion {
  if (!instructions) return 'neutral';
  const matches = EMOTION_WORDS.filter(([, words]) => words.test(instructions)).map(([emotion]) => emotion);
  return matches.length === 1 ? matches[0] : 'neutral';
}

/** The longest input OpenAI accepts; a plan with a lower `max_text_length` lowers it. */
const MAX_INPUT = 4096;

export const SpeechBody = z.strictObject({
  model: z
    .enum(MODEL_IDS, `Unknown model; one of: ${MODEL_IDS.join(', ')}.`)
    .meta({ description: 'Any of the names; they all run the same pipeline (the voice decides the engine)' }),
  input: z
    .string()
    .max(MAX_INPUT, `Must be at most ${MAX_INPUT} characters.`)
    .meta({
      description: `The text to speak, at most ${MAX_INPUT} characters (or the plan’s max_text_length if lower); ${COST_RULE}`,
    }),
  voice: z.string().min(1, 'Must not be empty.').max(64, 'Unknown voice.').optional().meta({
    description:
      "An OpenAI voice name (alloy, echo, …), a premade voice id or one of your ready cloned voices; left out, the account's default voice (the profile's `default_voice`)",
  }),
  response_format: z
    .enum(RESPONSE_FORMATS, `Must be one of: ${RESPONSE_FORMATS.join(', ')}.`)
    .default('mp3')
    .meta({ description: 'The streamed format; `pcm` is raw 16-bit little-endian mono at 24 kHz' }),
  speed: z
    .number()
    .min(SPEED_LIMITS.openai.min, 'Must be between 0.25 and 4.0.')
    .max(SPEED_LIMITS.openai.max, 'Must be between 0.25 and 4.0.')
    .default(1)
    .meta({
      description:
        'Tempo, pitch kept. The engine renders 0.5-2.0: values inside are exact, values outside are clamped to it.',
    }),
  instructions: z.string().max(MAX_INPUT, `Must be at most ${MAX_INPUT} characters.`).optional().meta({
    description:
      'Mapped to an emotion preset when it clearly asks for one (cheerful → happy, sad, angry, calm, excited), otherwise ignored.',
  }),
  stream_format: z
    .enum(['audio', 'sse'], 'Must be one of: audio, sse.')
    .default('audio')
    .meta({ description: '`audio`: the bytes; `sse`: server-sent events with base64 chunks' }),
  /** This service's own field (OpenAI has none): the same as on POST /api/v1/tts/synthesize/. */
  text_normalization: TextNormalizationField,
  /** This service's own field, as on POST /api/v1/tts/synthesize/ (no project here: the account-wide dictionaries by default). */
  pronunciation_dictionary_ids: PronunciationDictionaryIdsField,
  /** This service's own field, as on POST /api/v1/tts/synthesize/: the warnings come in the X-Synthesis-Warnings header. */
  text_type: TextTypeField,
});
export type SpeechBody = z.output<typeof SpeechBody>;

export const ModelParams = z.object({ id: z.string().max(100).meta({ description: 'A model name, e.g. `tts-1`' }) });

export const Model = z
  .object({
    id: z.string().meta({ description: 'The model name for `model`' }),
    object: z.literal('model').meta({ description: 'Always `model`' }),
    created: z
      .number()
      .int()
      .meta({ description: 'When the name was published here (Unix time, seconds)', example: 1767225600 }),
    owned_by: z.string().meta({ description: 'Always `openvox`' }),
  })
  .meta({ id: 'OpenAiModel' });
export const ModelList = z
  .object({
    object: z.literal('list').meta({ description: 'Always `list`' }),
    data: z.array(Model).meta({ description: 'The models' }),
  })
  .meta({ id: 'OpenAiModelList' });

export const VoiceList = z
  .object({
    voices: z.array(z.string()).meta({ description: 'Every accepted `voice` value' }),
    data: z
      .array(
        z.object({
          id: z.string().meta({ description: 'The `voice` value' }),
          name: z.string().meta({ description: 'Display name' }),
          language: z.string().meta({ description: 'BCP 47 tag of its language' }),
          gender: z.string().meta({
            description: '`female`, `male` or `unknown`; for an OpenAI name its documented gender, which its voice has',
          }),
          category: z
            .string()
            .meta({ description: '`openai` (a name mapped to a catalog voice), `premade` or `cloned`' }),
          voice_id: z.string().meta({
            description: 'The catalog voice it renders with on this server (for an OpenAI name; else the same as id)',
          }),
          neural: z.boolean().meta({ description: 'Whether that voice is neural (Kokoro, Piper) rather than classic' }),
          install: z
            .object({
              key: z.string().meta({ description: 'The voice to install', example: 'kokoro:af_bella' }),
              voice_id: z.string().meta({
                description: 'The voice id it adds, which the name then speaks with',
                example: 'en-us-kokoro-bella',
              }),
              command: z.string().meta({
                description: "The operator's command that installs it",
                example: 'openvox voices install kokoro:af_bella',
              }),
            })
            .nullable()
            .optional()
            .meta({
              description:
                'OpenAI names only: when the name speaks with a classic voice, the recommended voice that makes it neural; null when it is neural already',
            }),
        }),
      )
      .meta({ description: 'The accepted voices with their details' }),
  })
  .meta({ id: 'OpenAiVoiceList' });

/** OpenAI's error body. */
export const OpenAiError = z
  .object({
    error: z
      .object({
        message: z.string().meta({ description: 'What went wrong, in words' }),
        type: z.string().meta({ description: 'OpenAI’s error type, e.g. `invalid_request_error`' }),
        param: z.string().nullable().meta({ description: 'The request field at fault, or null' }),
        code: z.string().nullable().meta({ description: 'A machine-readable code, or null' }),
        balance: z.number().int().optional().meta({
          description: 'On `insufficient_quota`: your available credits now (the profile’s `credit_balance`)',
        }),
        required: z
          .number()
          .int()
          .optional()
          .meta({ description: 'On `insufficient_quota`: the credits the request needed' }),
      })
      .meta({ description: 'OpenAI’s error object' }),
  })
  .meta({ id: 'OpenAiError' });
