// Lint without type information: fast enough for `pnpm test` on 2 cores; `tsc -b` does the type checking.
import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ROOT = dirname(fileURLToPath(import.meta.url));
/** The workspace package a path lies in (its top folder holding a package.json), or null. */
const packageOf = (path) => {
  const top = relative(ROOT, path).split(sep)[0];
  return top && top !== '..' && existsSync(join(ROOT, top, 'package.json')) ? top : null;
};

/**
 * A package reaches another package only through that package's name and `exports` (a workspace
 * dependency), never by a relative path that climbs out of its own folder: the exports are the contract.
 */
const noCrossPackageRelative = {
  meta: {
    type: 'problem',
    messages: {
      cross:
        "'{{source}}' reaches into the package '{{target}}' by a relative path: import '@tlsrum/{{target}}…' (a workspace dependency and an entry of its package.json exports) instead.",
    },
  },
  create(context) {
    const from = packageOf(context.filename);
    const check = (node) => {
      const source = node?.type === 'Literal' && typeof node.value === 'string' ? node.value : null;
      if (!from || !source || !source.startsWith('.')) return;
      const target = packageOf(resolve(dirname(context.filename), source));
      if (target && target !== from) context.report({ node, messageId: 'cross', data: { source, target } });
    };
    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.tsbuild/**', '**/data/**', '**/.lab/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    plugins: { tlsrum: { rules: { 'no-cross-package-relative': noCrossPackageRelative } } },
    rules: { 'tlsrum/no-cross-package-relative': 'error' },
  },
  {
    // The probe's checks run in the dashboard's page too: no Node module, and nothing of the probe's own
    // that could bring one in (findings.ts may use the list itself).
    files: ['probe/src/checks.ts', 'probe/src/findings.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules.map((name) => ({
            name,
            message: 'The checks list runs in a browser page: no Node module.',
          })),
          patterns: [
            { regex: '^node:', message: 'The checks list runs in a browser page: no Node module.' },
            {
              regex: '^\\.(?!/checks$)',
              message: 'The checks list runs in a browser page: only ./checks, which imports nothing of the probe.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
        Buffer: 'readonly',
      },
    },
  },
);
