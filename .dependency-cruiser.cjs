// Checked by `npm run lint`: the top-level folders are layers, and a folder
// imports only from itself and the layers below it, so each can be read (and
// changed) knowing only the ones below. Imports of types only are erased by
// TypeScript and do not count (workflow code names its activities' types that
// way, and the synthesis module names a workflow's type to start it by name).
// docs/architecture.md#layout says what each folder holds.

/** Top to bottom; folders on one line are siblings and import nothing of each other. */
const LAYERS = [
  ['cli'],
  ['api', 'worker'],
  ['activities'],
  ['workflows'],
  ['studio'],
  ['synthesis'],
  ['db'],
  ['audio'],
  ['engines', 'text'],
  ['lib'],
];

const TOP = `(${LAYERS.flat().join('|')})`;
const folders = (names) => `^(${names.join('|')})/`;

/** For each layer: nothing from a layer above it, nor from a sibling. */
const layerRules = LAYERS.flatMap((layer, depth) =>
  layer.map((folder) => {
    const above = LAYERS.slice(0, depth).flat();
    const siblings = layer.filter((other) => other !== folder);
    const forbidden = [...above, ...siblings];
    return {
      name: `layer-${folder}`,
      comment: `${folder}/ imports only from the layers below it (${LAYERS.slice(depth + 1)
        .map((names) => names.join(', '))
        .join(' > ')}): move what both need down, or pass it in.`,
      severity: 'error',
      from: { path: `^${folder}/` },
      to: { path: folders(forbidden) },
    };
  }),
).filter((rule) => rule.to.path !== '^()/');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'workflow-code-is-pure',
      comment:
        'Workflow code runs in the deterministic sandbox and is bundled: it imports only other workflow files, the pure files of synthesis/ (contracts, cost, status) and @temporalio/workflow (types of anything else: `import type`).',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        pathNot:
          '^(workflows/|synthesis/(contracts|cost|status)\\.ts$|studio/conversion[^/]*\\.ts$|node_modules/@temporalio/(workflow|common)/)',
      },
    },
    {
      name: 'no-cycle-between-top-level-folders',
      comment:
        'Two top-level folders import each other (through any files): move what both need to the lower one, or pass it in.',
      severity: 'error',
      scope: 'folder',
      from: { path: `^${TOP}$` },
      to: { path: `^${TOP}$`, circular: true },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|\\.data|coverage)/' },
  },
};
