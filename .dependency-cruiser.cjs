// Checked by `npm run lint`: the top-level folders form no import cycle, so
// each can be read (and changed) knowing only the ones below it. Imports of
// types only are erased by TypeScript and do not count (workflow code names
// its activities' types that way).
const TOP = '(api|activities|workflows|synthesis|worker|db|lib|engines|audio|cli|text)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle-between-top-level-folders',
      comment: 'Two top-level folders import each other (through any files): move what both need to the lower one, or pass it in.',
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
