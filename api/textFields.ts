import { z } from 'zod';

/** Unicode code points: what a person counts as characters. */
export const codePoints = (value: string) => [...value].length;

/**
 * A text field trimmed and NFC-normalized before it is checked, so values that
 * look the same are the same (a name, a written form): non-empty, and at most
 * `max` by `length` (code points unless said otherwise). Callers add `.meta()`
 * with what JSON Schema should say (minLength, maxLength, pattern '\\S').
 */
export function trimmedText(max: number, length: (value: string) => number = codePoints) {
  return z
    .string()
    .trim()
    .transform((value) => value.normalize('NFC'))
    .pipe(
      z
        .string()
        .refine((value) => value.length > 0, 'Must not be empty.')
        .refine((value) => length(value) <= max, `Must be at most ${max} characters.`),
    );
}
