import { formatDuration, printable } from './output';
import type { HistoryEntryJson, OpenAiVoiceJson, ProfileJson, VoiceJson } from './wire';

/**
 * The user commands' text listings: a header line, then one tab-separated
 * line per row (so `cut -f` and `awk -F'\t'` read them), free text last.
 * What the server stores for users (names, texts) goes through `printable`.
 */

const tsv = (header: string[], rows: Array<Array<string | number>>) =>
  [header, ...rows].map((row) => row.join('\t')).join('\n');

const day = (iso: string) => iso.slice(0, 10);
/** The last day a period includes: its end is exclusive. */
const lastDay = (iso: string) => new Date(Date.parse(iso) - 86_400_000).toISOString().slice(0, 10);

/** `openvox voices`: id, language, gender, neural or classic, category, status, name. */
export function voicesTable(voices: readonly VoiceJson[]): string {
  if (voices.length === 0) return 'no voices match';
  return tsv(
    ['id', 'language', 'gender', 'quality', 'category', 'status', 'name'],
    voices.map((voice) => [
      voice.id,
      voice.language,
      voice.gender,
      // A clone has no quality until it is ready (its base voice's, then).
      voice.quality ?? '-',
      voice.category,
      voice.status,
      printable(voice.name),
    ]),
  );
}

/** What an OpenAI name speaks with here, and what makes it neural when it is classic. */
export function openAiHint(voice: Pick<OpenAiVoiceJson, 'id' | 'voice_id' | 'neural' | 'install'>): string | null {
  if (voice.neural || !voice.install) return null;
  return `${voice.id} speaks with ${voice.voice_id} here, a classic voice; to make it neural, the operator runs: ${voice.install.command}`;
}

/** `openvox voices openai`: each OpenAI name, its gender, the voice it speaks with, and what to install when it is classic. */
export function openAiTable(voices: readonly OpenAiVoiceJson[]): string {
  const names = voices.filter((voice) => voice.category === 'openai');
  if (names.length === 0) return 'this server reports no OpenAI voice names';
  return tsv(
    ['name', 'gender', 'voice', 'quality', 'to make it neural'],
    names.map((voice) => [
      voice.id,
      voice.gender,
      voice.voice_id,
      voice.neural ? 'neural' : 'classic',
      voice.install?.command ?? '-',
    ]),
  );
}

/** `openvox history`: id, created, status (with its progress while it runs), voice, characters, the text's start. */
export function historyTable(entries: readonly HistoryEntryJson[]): string {
  if (entries.length === 0) return 'no syntheses';
  return tsv(
    ['id', 'created', 'status', 'voice', 'characters', 'text'],
    entries.map((entry) => [
      // The versioned family (the CLI's) names it id.
      entry.id ?? entry.task_id ?? '-',
      entry.created_at.slice(0, 19).replace('T', ' '),
      entry.status === 'processing' ? `processing ${Math.round(entry.progress * 100)}%` : entry.status,
      entry.voice_id,
      entry.characters,
      printable(JSON.stringify(entry.text.length > 40 ? `${entry.text.slice(0, 40)}…` : entry.text)),
    ]),
  );
}

/**
 * `openvox usage`: the balance, the billing period (from verification, monthly:
 * when credits are topped up) and the calendar month the usage counts, as the
 * dashboard's Usage page shows them, and the default voice.
 */
export function usageText(profile: ProfileJson): string {
  const { usage, billing_period: billing, default_voice: voice } = profile;
  return [
    `${printable(profile.email)} (plan ${profile.subscription_tier})`,
    `credits: ${profile.credit_balance} available, ${profile.credits_reserved} reserved`,
    billing
      ? `billing period: ${day(billing.start)} to ${day(billing.end)}; on ${day(billing.end)} the credits are topped up to the plan's monthly credits and a new period starts`
      : 'billing period: none yet; credits are granted when the email address is verified, and topped up monthly from then',
    `default voice: ${printable(voice.name)} (${voice.id}, ${voice.source === 'account' ? 'your choice' : 'the service default'})`,
    ...(voice.notice ? [`note: ${printable(voice.notice)}`] : []),
    `this month (${day(usage.period_start)} to ${lastDay(usage.period_end)}): ${usage.syntheses} syntheses, ${usage.syntheses_failed} failed, ${usage.credits_used} credits, ${formatDuration(usage.audio_seconds)} of audio, ${usage.cloned_voices}/${usage.cloned_voices_limit} cloned voices`,
    ...usage.daily.map(
      (entry) =>
        `  ${entry.date}: ${entry.syntheses} syntheses, ${entry.credits_used} credits, ${formatDuration(entry.audio_seconds)} of audio`,
    ),
  ].join('\n');
}
