import { projectTestConfig } from '../../vitest.shared.ts';

export default projectTestConfig({ fileParallelism: false, testTimeout: 60_000 });
