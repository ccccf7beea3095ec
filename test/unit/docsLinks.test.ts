import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// A person who clones the repository has only what is in it: README and docs/
// may point at nothing outside, and every relative link must reach a file.
const root = path.join(__dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Markdown link targets `[text](target)`, outside fenced code blocks. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

function anchorsOf(markdown: string): Set<string> {
  const headings = [...markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#+\s+(.+)$/gm)].map((match) => match[1]);
  // GitHub's slugs: lower case, punctuation dropped, spaces to hyphens.
  return new Set(
    headings.map((heading) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe.each(documents)('%s', (document) => {
  const text = readFileSync(path.join(root, document), 'utf8');

  it('references nothing outside the repository', () => {
    expect(text).not.toContain('../shared');
  });

  it('has every relative link resolve to a file (and its anchor to a heading)', () => {
    const broken: string[] = [];
    for (const target of linkTargets(text)) {
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const [file, anchor] = target.split('#');
      const resolved = file ? path.resolve(path.dirname(path.join(root, document)), file) : path.join(root, document);
      if (!resolved.startsWith(root + path.sep) || !existsSync(resolved)) {
        broken.push(target);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});

it('the README links to each document in docs/', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  for (const document of documents.filter((name) => name.startsWith('docs/'))) expect(readme).toContain(`](${document})`);
});
