import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const moduleBoundaries = {
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
    { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts'] },
    { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:tool'] },
    { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:tool'] },
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:service', 'type:lib', 'type:contracts', 'type:tool'] },
    // Services never import each other: each may only use shared code and itself.
    { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway', 'scope:tool'] },
    { sourceTag: 'scope:sessions', onlyDependOnLibsWithTags: ['scope:shared', 'scope:sessions', 'scope:tool'] },
    { sourceTag: 'scope:messaging', onlyDependOnLibsWithTags: ['scope:shared', 'scope:messaging', 'scope:tool'] },
    { sourceTag: 'scope:quota', onlyDependOnLibsWithTags: ['scope:shared', 'scope:quota', 'scope:tool'] },
    { sourceTag: 'scope:events', onlyDependOnLibsWithTags: ['scope:shared', 'scope:events', 'scope:tool'] },
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/data/**', '**/vitest.config.ts', 'vitest.shared.ts'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', moduleBoundaries],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Domain code (deciders, evolvers, projections' pure folds) imports only contracts.
    files: ['services/*/src/**/{decide,evolve,state}.ts', 'services/*/src/**/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!@switchboard/contracts$|\\.{1,2}/)', message: 'Domain code imports only @switchboard/contracts and its own folder.' }],
      }],
    },
  },
);
