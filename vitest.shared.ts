import { defineConfig, type ViteUserConfig } from 'vitest/config';

/**
 * One vitest setup for every project: workspace packages resolve to their TypeScript sources
 * (the `development` export condition), and Vite's Oxc transformer compiles NestJS's legacy
 * decorators with `design:*` metadata, as `tsc` does for the build.
 */
export function projectTestConfig(overrides: NonNullable<ViteUserConfig['test']> = {}): ViteUserConfig {
  return defineConfig({
    oxc: { decorator: { legacy: true, emitDecoratorMetadata: true } },
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
