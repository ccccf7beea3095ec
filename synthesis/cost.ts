import type { SynthesisRequest } from './contracts';

/**
 * What a synthesis costs, the one place that says it: the reservation takes
 * this many credits (activities/credits.ts), the capture charges what was
 * reserved, the 402 names it, and the API's descriptions and the plan's
 * `credits_per_character` (the dashboard's estimate) are made from it.
 * Pure: workflow code may import it.
 */
export const CREDITS_PER_CHARACTER = 1;

/**
 * The credits a checked request costs: `characters` are code points of the
 * trimmed, NFC text; when its dictionaries' aliases make it say more
 * (`spokenCharacters`, synthesis/spokenLength.ts), what it says is charged.
 */
export const creditsFor = (request: Pick<SynthesisRequest, 'characters' | 'spokenCharacters'>): number =>
  Math.max(request.characters, request.spokenCharacters ?? 0) * CREDITS_PER_CHARACTER;

/** The rule in words, for the API's descriptions: "1 credit per character". */
export const COST_RULE = `${CREDITS_PER_CHARACTER} credit${CREDITS_PER_CHARACTER === 1 ? '' : 's'} per character`;
