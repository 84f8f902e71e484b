import { projectTestConfig } from '../../vitest.shared.ts';

export default projectTestConfig({ globalSetup: ['test/build-dist.global.ts'] });
