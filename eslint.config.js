// ESLint 9 flat config: recommended rules (not type-checked, to stay fast) plus the import boundaries of
// DESIGN.md section 2, enforced with `no-restricted-imports` (static imports, re-exports,
// `import x = require()`) and `no-restricted-syntax` (dynamic `import('...')` and `require('...')` with a
// string literal).
//
// Flat config replaces a rule's options when several objects match a file, it does not merge them, so
// every file gets its boundary rules from exactly one of the disjoint groups built by `boundary()` below.

import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Regular expressions over import specifiers. They avoid a literal "/" (written \x2F) because esquery,
// which reads the no-restricted-syntax selectors, ends a regex at the first "/".
const ELECTRON = String.raw`^electron(?:\x2F|$)`;
const builtinNames = [...new Set(builtinModules.map((name) => name.split('/')[0]))];
const NODE_BUILTIN = String.raw`^(?:node:|(?:${builtinNames.join('|')})(?:\x2F|$))`;
// Any path through a src-main folder other than src-main/protocol (relative or not).
const SRC_MAIN_EXCEPT_PROTOCOL = String.raw`(?:^|\x2F)src-main(?:\x2F(?!protocol(?:\x2F|$))|$)`;
// Anything but zod (and its subpaths, e.g. zod/v4) and the protocol folder's own files ("./x").
const NOT_ZOD_OR_OWN = String.raw`^(?!zod(?:\x2F|$)|\.\x2F)`;

const NO_ELECTRON = {
  regex: ELECTRON,
  message: 'Only src-main/electron/ may import electron; the host core also runs in plain Node (DESIGN.md 2).',
};

/**
 * One config object carrying a folder's import rules: `no-restricted-imports` patterns, mirrored as
 * `no-restricted-syntax` selectors for dynamic import() and require() calls with a literal name.
 */
function boundary(name, files, ignores, restrictions) {
  const selectors = restrictions.flatMap(({ regex, message }) => [
    { selector: `ImportExpression > Literal.source[value=/${regex}/]`, message },
    { selector: `CallExpression[callee.name="require"] > Literal.arguments:first-child[value=/${regex}/]`, message },
  ]);
  return {
    name: `deskhand/boundaries/${name}`,
    files,
    ignores,
    rules: {
      'no-restricted-imports': ['error', { patterns: restrictions }],
      'no-restricted-syntax': ['error', ...selectors],
    },
  };
}

const TS_AND_JS = '{ts,tsx,mts,cts,js,mjs,cjs}';
const NODE_FILES = [
  'src-main/**/*.ts',
  'tests/**/*.ts',
  'scripts/**/*.{ts,js,mjs,cjs}',
  'bin/**/*.{js,mjs,cjs}',
  '*.config.{ts,js,mjs,cjs}',
];
const RENDERER_FILES = ['src-renderer/**/*.{ts,tsx}'];

export default defineConfig([
  globalIgnores(['out/', 'dist/', 'node_modules/', 'coverage/', 'release/']),

  {
    name: 'deskhand/recommended',
    files: [...NODE_FILES, ...RENDERER_FILES],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-unused-vars': 'off', // the typescript-eslint rule below covers JS files too
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  { name: 'deskhand/globals/node', files: NODE_FILES, languageOptions: { globals: { ...globals.node } } },
  { name: 'deskhand/globals/browser', files: RENDERER_FILES, languageOptions: { globals: { ...globals.browser } } },

  // (a) The renderer talks to the host only through the protocol; it is browser code.
  boundary('renderer', [`src-renderer/**/*.${TS_AND_JS}`], [], [
    {
      regex: SRC_MAIN_EXCEPT_PROTOCOL,
      message: 'The renderer may import only src-main/protocol from src-main (DESIGN.md 2).',
    },
    {
      regex: NODE_BUILTIN,
      message: 'The renderer runs sandboxed in a browser: no Node built-ins; ask the host through the Bridge.',
    },
    { regex: ELECTRON, message: 'The renderer may not import electron; use the Bridge interface.' },
  ]),

  // (c) The wire contract is pure TypeScript + zod, shared with the renderer.
  boundary('protocol', [`src-main/protocol/**/*.${TS_AND_JS}`], [], [
    {
      regex: NOT_ZOD_OR_OWN,
      message:
        'src-main/protocol may import only zod and its own files ("./..."): no Node built-ins, no other ' +
        'src-main folder, no other package (it is shared with the renderer).',
    },
  ]),

  // (b) Electron stays inside src-main/electron/: everything else (the rest of src-main, tests, scripts,
  // config files) must run without it. src-main/electron/ itself has no boundary rules.
  boundary(
    'no-electron',
    [`**/*.${TS_AND_JS}`],
    ['src-main/electron/**', 'src-main/protocol/**', 'src-renderer/**'],
    [NO_ELECTRON],
  ),
]);
