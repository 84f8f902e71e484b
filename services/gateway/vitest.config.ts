import { projectTestConfig } from '../../vitest.shared.ts';

export default projectTestConfig({ setupFiles: ['test/setup/documented-responses.ts'] });
