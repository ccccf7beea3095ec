import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// A person who clones the repository has only what is in it: README and docs/
// may point at nothing outside, every relative link must reach a file and its
// anchor a heading, and every section a code comment cites must exist.
const root = path.join(__dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const withoutCode = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '');

/** Markdown link targets `[text](target)`, outside fenced code blocks. */
function linkTargets(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

function headingsOf(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/^#+\s+(.+?)\s*#*\s*$/gm)].map((match) => match[1].trim());
}

/** GitHub's slug of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading keeps its text
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors GitHub makes: a repeated slug gets -1, -2, … */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(markdown)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe.each(documents)('%s', (document) => {
  const text = read(document);

  it('references nothing outside the repository, and no issue tracker', () => {
    expect(text).not.toContain('../shared');
    const trackers = linkTargets(text).filter((target) => /\/(issues|pull)\/|\/-\/issues/.test(target));
    expect(trackers).toEqual([]);
    expect(withoutCode(text)).not.toMatch(/\bissues? #\d+/i);
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
      if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
        broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});

it('the README links to each document in docs/', () => {
  const readme = read('README.md');
  for (const document of documents.filter((name) => name.startsWith('docs/')))
    expect(readme).toContain(`](${document})`);
});

// The code layout is kept in one place, docs/architecture.md; its folders are also where code comments are read.
const layoutFolders = [...read('docs/architecture.md').matchAll(/^\| `([\w.-]+)\/` \|/gm)].map((match) => match[1]);

it('docs/architecture.md lays out folders that exist, and the README does not repeat the layout', () => {
  expect(layoutFolders.length).toBeGreaterThan(5);
  for (const folder of layoutFolders)
    expect(existsSync(path.join(root, folder)) && statSync(path.join(root, folder)).isDirectory()).toBe(true);
  expect(read('README.md')).not.toMatch(/^\| `api\/` \|/m);
});

function codeFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : codeFiles(relative);
    return /\.(ts|tsx|js|mjs|sh|ya?ml)$/.test(entry.name) ? [relative] : [];
  });
}

/**
 * Sections cited from code, in the forms the code uses: README "X", README's "X",
 * README.md, "X", docs/x.md ("X"), docs/x.md, "X" (a comment may wrap between
 * the file and the title), and anchors docs/x.md#x.
 */
function citations(source: string): { file: string; section?: string; anchor?: string }[] {
  const found: { file: string; section?: string; anchor?: string }[] = [];
  const cited = /\b(README(?:\.md)?|docs\/[\w-]+\.md)(?:'s)?,?(?:\s*(?:\*|\/\/|#)?\s*)\(?"([^"\n]+)"/g;
  for (const match of source.matchAll(cited))
    found.push({ file: match[1].startsWith('README') ? 'README.md' : match[1], section: match[2] });
  for (const match of source.matchAll(/\b(README\.md|docs\/[\w-]+\.md)#([\w-]+)/g))
    found.push({ file: match[1], anchor: match[2] });
  return found;
}

it('every README or docs section a code comment cites exists', () => {
  const self = path.relative(root, __filename);
  const files = [
    ...layoutFolders.filter((folder) => folder !== 'docs').flatMap(codeFiles),
    'Dockerfile',
    'docker-compose.yml',
    '.ci/run',
  ];
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    if (file === self || !existsSync(path.join(root, file))) continue;
    for (const { file: cited, section, anchor } of citations(read(file))) {
      checked++;
      if (!existsSync(path.join(root, cited))) {
        broken.push(`${file}: ${cited} does not exist`);
        continue;
      }
      const markdown = read(cited);
      if (
        section !== undefined &&
        !headingsOf(markdown).some((heading) => heading === section || slug(heading) === slug(section))
      )
        broken.push(`${file}: ${cited} has no section "${section}"`);
      if (anchor !== undefined && !anchorsOf(markdown).has(anchor))
        broken.push(`${file}: ${cited}#${anchor} has no heading`);
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(0);
});
