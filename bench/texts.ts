/** The texts the benchmarks (and the tests that speak the same texts) render. */

/** Twelve short sentences of one story: one chunk each when streamed, so a stream's first audio waits for the first alone. */
export const TRAIN_SENTENCES = [
  'The morning train left on time.',
  'Every passenger found a seat by the window.',
  'Rain began to fall over the hills.',
  'A child counted the cows in the fields.',
  'The conductor punched each ticket twice.',
  'Somebody opened a thermos of sweet tea.',
  'The river ran beside the track for an hour.',
  'Two old friends argued about the weather.',
  'A dog slept under the seat in front.',
  'The lights flickered as we entered the tunnel.',
  'Nobody spoke until we reached the coast.',
  'At last the sea appeared, grey and wide.',
] as const;

/** Everyday sentences: pocketsphinx's general language model knows their words (on Harvard sentences it mishears half of even the raw engine). */
export const EVERYDAY_SENTENCES = [
  'The weather is lovely this morning, so we will walk to the park.',
  'Please call me back when you get home tonight.',
  'The meeting has been moved to next Tuesday afternoon.',
  'I would like to order a cup of coffee and a glass of water.',
  'The train to the city leaves every hour from the main station.',
  'Thank you for your patience while we check your account.',
] as const;
