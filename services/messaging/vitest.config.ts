import { projectTestConfig } from '../../vitest.shared.ts';

// Each end-to-end file runs a whole cluster (NATS, emulator, three service processes): one file
// at a time keeps a 2-core machine from starving them.
export default projectTestConfig({ fileParallelism: false, testTimeout: 120_000 });
