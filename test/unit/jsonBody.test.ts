import { checkJsonBounds, MAX_JSON_DEPTH, MAX_JSON_MEMBERS, parseJsonBody } from '../../api/jsonBody';
import { ApiError } from '../../api/errors';

/** The raw-text bounds of api/jsonBody.ts: what counts as depth and members, and what does not. */
describe('checkJsonBounds', () => {
  it('counts nesting of objects and arrays, up to the limit', () => {
    expect(checkJsonBounds('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBe('ok');
    expect(checkJsonBounds('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toBe('too_deep');
    expect(checkJsonBounds('{"a":'.repeat(MAX_JSON_DEPTH + 1))).toBe('too_deep');
  });

  it('ignores brackets, commas and escaped quotes inside strings', () => {
    expect(checkJsonBounds(JSON.stringify({ text: '[[[[{{{{'.repeat(100) + ','.repeat(5000) + '\\"[' }))).toBe('ok');
  });

  it('counts members and items across the whole body', () => {
    const items = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;
    expect(checkJsonBounds(items(MAX_JSON_MEMBERS))).toBe('ok');
    expect(checkJsonBounds(items(MAX_JSON_MEMBERS + 1))).toBe('too_many_members');
  });
});

describe('parseJsonBody', () => {
  it('reads an empty body as {} and refuses scalars at the top', () => {
    expect(parseJsonBody('')).toEqual({});
    expect(() => parseJsonBody('"x"')).toThrow(SyntaxError);
  });

  it('rejects depth with invalid_json and width with validation_error before parsing', () => {
    const deep = (() => {
      try {
        parseJsonBody('['.repeat(100_000));
      } catch (error) {
        return error;
      }
    })() as ApiError;
    expect(deep).toBeInstanceOf(ApiError);
    expect(deep.code).toBe('invalid_json');
    const wide = (() => {
      try {
        parseJsonBody(`[${'0,'.repeat(MAX_JSON_MEMBERS)}0]`);
      } catch (error) {
        return error;
      }
    })() as ApiError;
    expect(wide.code).toBe('validation_error');
  });

  it('refuses a __proto__ member', () => {
    expect(() => parseJsonBody('{"__proto__":{"admin":true}}')).toThrow('Object contains forbidden prototype property');
  });
});
