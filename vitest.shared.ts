import swc from 'unplugin-swc';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

/**
 * One vitest setup for every project: workspace packages resolve to their TypeScript sources
 * (the `development` export condition), and SWC compiles NestJS decorators with metadata.
 */
export function projectTestConfig(overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  return defineConfig({
    plugins: [
      swc.vite({
        jsc: {
          target: 'es2023',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        },
      }),
    ],
    resolve: { conditions: ['development'] },
    ssr: { resolve: { conditions: ['development'] } },
    test: {
      include: ['src/**/*.spec.ts', 'test/**/*.spec.ts'],
      environment: 'node',
      pool: 'forks',
      testTimeout: 30_000,
      hookTimeout: 30_000,
      reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
      ...overrides,
    },
  });
}
