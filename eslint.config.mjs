// Lint with type information: the rules below catch what tsc does not (a
// promise nobody awaits, a name nobody reads, Node built-ins in workflow code,
// which must stay deterministic).
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

// Models are bound to no pool (db/knex.ts): a query names its own.
const modelQueryNamesItsPool = {
  selector:
    "CallExpression[arguments.length=0][callee.type='MemberExpression'][callee.property.name='query'][callee.object.name=/^[A-Z]/]",
  message: 'Pass the knex instance or transaction: Model.query(db).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    // The dashboard (web/src, its own tsconfig) too: the project service finds the nearest tsconfig.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-require-imports': 'error',
      'no-restricted-syntax': ['error', modelQueryNamesItsPool],
    },
  },
  {
    // The application reaches its tables through the data layer (db/models, db/*.ts), never by name.
    files: [
      'api/**/*.ts',
      'activities/**/*.ts',
      'synthesis/**/*.ts',
      'cli/**/*.ts',
      'lib/**/*.ts',
      'worker/**/*.ts',
      'engines/**/*.ts',
      'audio/**/*.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        modelQueryNamesItsPool,
        {
          selector:
            "CallExpression[callee.type='Identifier'][callee.name=/^(db|trx|knex)$/][arguments.0.type='Literal']",
          message: "Query tables through the data layer (db/models or a db/*.ts module), not db('table').",
        },
      ],
    },
  },
  {
    // Production code says what it holds (unknown, then narrowed); tests, benchmarks, chaos and scripts may use any. (cli/ still has a few.)
    files: ['{api,activities,workflows,synthesis,worker,db,lib,engines,audio,text}/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    // Workflow code is replayed: it must not reach the clock, the disk or randomness through Node.
    // The synthesis module's pure files are workflow code too (the workflows import them).
    files: ['workflows/**/*.ts', 'synthesis/contracts.ts', 'synthesis/cost.ts', 'synthesis/status.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*'],
              message: 'Workflow code is deterministic: no Node built-ins (put it in an activity).',
            },
          ],
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Workflow code is deterministic: no Node built-ins (put it in an activity).',
          })),
        },
      ],
    },
  },
);
