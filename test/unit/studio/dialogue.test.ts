import { splitDialogue } from '../../../studio/dialogue';

describe('splitDialogue', () => {
  it.each([
    [
      '“Come in,” she said. “It’s cold.”',
      [
        ['dialogue', '“Come in,”'],
        ['narration', ' she said. '],
        ['dialogue', '“It’s cold.”'],
      ],
    ],
    [
      'He said "no" twice: "No!"',
      [
        ['narration', 'He said '],
        ['dialogue', '"no"'],
        ['narration', ' twice: '],
        ['dialogue', '"No!"'],
      ],
    ],
    [
      'The dogs’ bowls were empty. ‘Don’t feed them,’ said Tom.',
      [
        ['narration', 'The dogs’ bowls were empty. '],
        ['dialogue', '‘Don’t feed them,’'],
        ['narration', ' said Tom.'],
      ],
    ],
    [
      '«Bonjour», dit-il.',
      [
        ['dialogue', '«Bonjour»'],
        ['narration', ', dit-il.'],
      ],
    ],
    [
      '„Guten Tag“, sagte er.',
      [
        ['dialogue', '„Guten Tag“'],
        ['narration', ', sagte er.'],
      ],
    ],
    ['No dialogue at all.', [['narration', 'No dialogue at all.']]],
    [
      '“A speech that goes on into the next paragraph',
      [['dialogue', '“A speech that goes on into the next paragraph']],
    ],
  ])('splits %s', (text, expected) => {
    const segments = splitDialogue(text);
    expect(segments.map((segment) => [segment.kind, segment.text])).toEqual(expected);
    expect(segments.map((segment) => segment.text).join('')).toBe(text);
  });
});
