import { projectTestConfig } from '../../vitest.shared.ts';

// End-to-end tests start whole Switchboards (several processes with Baileys each): one file
// at a time, so two of them never compete for the machine's two cores.
export default projectTestConfig({ fileParallelism: false, testTimeout: 120_000, hookTimeout: 180_000, setupFiles: ['test/setup/documented-responses.ts'] });
