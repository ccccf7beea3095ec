import { OPENAI_VOICES } from '../engines/openAiVoices';
import type { OpenVoxClient } from './client';
import { openAiHint } from './listings';
import { printable } from './output';
import type { OpenAiVoiceListJson, ProfileJson } from './wire';

/**
 * Which voice `openvox say` speaks with: the one named (a voice id, or one of
 * OpenAI's names as GET /v1/audio/voices resolves it on this server), else the
 * account's default voice from the profile.
 */

export interface VoiceChoice {
  /** The voice id submitted. */
  voice_id: string;
  /** `option`: --voice named it; `openai`: --voice gave an OpenAI name; `account`/`service`: the profile's default voice. */
  source: 'option' | 'openai' | 'account' | 'service';
  /** The OpenAI name given (source `openai`), else null. */
  openai_name: string | null;
  /** Whether the voice is neural, when the server says (OpenAI names); else null. */
  neural: boolean | null;
  /** For an OpenAI name on a classic voice: what the operator installs to make it neural. */
  install: { key: string; voice_id: string; command: string } | null;
  /** Why the account's chosen default voice is passed over (the profile's words), else null. */
  notice: string | null;
}

/** Lines for stderr: what the user should know about the choice (none when there is nothing to say). */
export function voiceNotes(choice: VoiceChoice): string[] {
  const notes: string[] = [];
  if (choice.notice) notes.push(`note: ${choice.notice}`);
  if (choice.openai_name && choice.neural === false && choice.install) {
    const hint = openAiHint({
      id: choice.openai_name,
      voice_id: choice.voice_id,
      neural: false,
      install: choice.install,
    });
    if (hint) notes.push(`note: ${hint}`);
  }
  return notes.map(printable);
}

export async function chooseVoice(api: OpenVoxClient, requested: string | undefined): Promise<VoiceChoice> {
  const none = { openai_name: null, neural: null, install: null, notice: null };
  if (requested === undefined) {
    const { default_voice: voice } = await api.json<ProfileJson>('GET', '/api/v1/auth/profile/');
    return { ...none, voice_id: voice.id, source: voice.source, notice: voice.notice };
  }
  const name = requested.trim().toLowerCase();
  if (!OPENAI_VOICES.has(name)) return { ...none, voice_id: requested, source: 'option' };
  const listed = await api.json<OpenAiVoiceListJson>('GET', '/api/v1/audio/voices/');
  const alias = listed.data.find((voice) => voice.category === 'openai' && voice.id === name);
  // A server that does not map the name: submitted as given, and its answer says why not.
  if (!alias) return { ...none, voice_id: requested, source: 'option' };
  return {
    ...none,
    voice_id: alias.voice_id,
    source: 'openai',
    openai_name: name,
    neural: alias.neural,
    install: alias.install ?? null,
  };
}
