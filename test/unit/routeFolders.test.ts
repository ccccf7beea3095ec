import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Each resource's routes in one folder of api/routes: its handlers
 * (index.ts), its request and response schemas (schema.ts) and its presenter
 * (presenter.ts: rows → the API's JSON), so a change to a resource has one
 * place to go (docs/changing.md).
 */
const ROUTES = path.join(__dirname, '..', '..', 'api', 'routes');

/** Folders that present no stored resource: the answer is audio (openai) or the service's own state (operations). */
const WITHOUT_PRESENTER = new Set(['openai', 'operations']);
/** Operations take no input and answer documents of their own (health, metrics, the OpenAPI document). */
const WITHOUT_SCHEMA = new Set(['operations']);

const folders = readdirSync(ROUTES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('api/routes folders', () => {
  it.each(folders)('%s has its handlers, schema and presenter', (folder) => {
    const has = (file: string) => existsSync(path.join(ROUTES, folder, file));
    expect({
      handlers: has('index.ts'),
      schema: has('schema.ts') || WITHOUT_SCHEMA.has(folder),
      presenter: has('presenter.ts') || WITHOUT_PRESENTER.has(folder),
    }).toEqual({ handlers: true, schema: true, presenter: true });
  });

  it('names only folders that exist as exceptions', () => {
    for (const folder of [...WITHOUT_PRESENTER, ...WITHOUT_SCHEMA]) expect(folders).toContain(folder);
  });
});
