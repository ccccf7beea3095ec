import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The API never reads text on its event loop: parsing SSML, normalizing,
 * applying or compiling dictionaries and parsing PLS run on the text thread
 * (api/text/thread.ts), whose work is linear in a text the plan bounds
 * (test/unit/normalizeLinear.test.ts, test/unit/lexiconLinear.test.ts).
 * `npm run bench:stall` measures what is left on the loop.
 */

const ROOT = path.join(__dirname, '../..');
const ON_THE_THREAD = new Set(['api/text/reading.ts', 'api/text/threadMain.ts']);
const TEXT_WORK =
  /from '[./]*text\/(normalize|ssml|spoken)'|\b(applyLexicon|compileLexicon|readMapped|aliasExpansion|parsePls|parseSsml|normalizeText|spokenCharacters)\b/;

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

describe("the API's event loop", () => {
  it('runs no text work: only the text thread imports the parsers, the normalizer and the dictionary matcher', () => {
    const offenders = sources('api')
      .filter((file) => !ON_THE_THREAD.has(file))
      .filter((file) =>
        [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^import [^;]*?from '[^']*';/gms)].some(
          ([statement]) => TEXT_WORK.test(statement),
        ),
      );
    expect(offenders).toEqual([]);
  });
});
