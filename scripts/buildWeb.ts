import { build } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../lib/config';

/**
 * Bundles the dashboard (web/) with esbuild into dist/web/: one minified,
 * content-hashed script and stylesheet, index.html that names them, and the
 * site's icon (favicon.svg).
 * `npm run build` runs it, and so does the test set-up when the bundle is
 * missing or older than its sources.
 */
export const WEB_SOURCE = path.join(ROOT, 'web');
export const WEB_OUT = path.join(ROOT, 'dist', 'web');
/** The first-load JavaScript budget, gzipped. */
export const FIRST_LOAD_BUDGET = 150 * 1024;

export interface WebBuild {
  dir: string;
  /** First-load JavaScript: every script index.html loads, gzipped, in bytes. */
  scriptGzipBytes: number;
  scriptBytes: number;
}

async function newestSourceTime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestSourceTime(full) : (await stat(full)).mtimeMs);
  }
  return newest;
}

/** Whether dist/web is missing or older than any file under web/. */
export async function webBuildIsStale(outDir = WEB_OUT): Promise<boolean> {
  const built = await stat(path.join(outDir, 'index.html')).catch(() => null);
  return !built || (await newestSourceTime(WEB_SOURCE)) > built.mtimeMs;
}

/** Sizes of the scripts index.html loads. */
export async function measureFirstLoad(outDir = WEB_OUT): Promise<Omit<WebBuild, 'dir'>> {
  const html = await readFile(path.join(outDir, 'index.html'), 'utf8');
  let scriptBytes = 0;
  let scriptGzipBytes = 0;
  for (const [, src] of html.matchAll(/<script[^>]*src="\/app\/assets\/([^"]+)"/g)) {
    const content = await readFile(path.join(outDir, src));
    scriptBytes += content.length;
    scriptGzipBytes += gzipSync(content, { level: 9 }).length;
  }
  return { scriptBytes, scriptGzipBytes };
}

export async function buildWeb(outDir = WEB_OUT): Promise<WebBuild> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await build({
    entryPoints: { app: path.join(WEB_SOURCE, 'src', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: outDir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style) throw new Error(`web build produced ${outputs.join(', ')}`);
  const template = await readFile(path.join(WEB_SOURCE, 'index.html'), 'utf8');
  const html = template.replace('%SCRIPT%', `/app/assets/${script}`).replace('%STYLE%', `/app/assets/${style}`);
  await writeFile(path.join(outDir, 'index.html'), html);
  await copyFile(path.join(WEB_SOURCE, 'favicon.svg'), path.join(outDir, 'favicon.svg'));
  return { dir: outDir, ...(await measureFirstLoad(outDir)) };
}

if (require.main === module) {
  buildWeb()
    .then(({ dir, scriptBytes, scriptGzipBytes }) => {
      const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
      process.stdout.write(
        `dashboard built in ${path.relative(process.cwd(), dir) || dir}: first-load JavaScript ${kb(scriptBytes)}, ${kb(scriptGzipBytes)} gzipped (budget ${kb(FIRST_LOAD_BUDGET)})\n`,
      );
      if (scriptGzipBytes > FIRST_LOAD_BUDGET) {
        process.stderr.write('over the first-load budget\n');
        process.exitCode = 1;
      }
    })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    });
}
