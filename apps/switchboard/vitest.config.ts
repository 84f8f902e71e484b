import { defineConfig } from 'vitest/config';
import { projectTestConfig } from '../../vitest.shared.ts';

/** The e2e specs that run each of their cases in both addressings themselves (`MODES_AND_ADDRESSINGS`). */
const EACH_CASE_IN_BOTH_ADDRESSINGS = ['messages', 'inbound', 'polls', 'retry-receipts'];
/** The e2e specs in which no contact is ever named, so how the network names contacts changes nothing. */
const NO_CONTACTS = ['distributed-launcher', 'docs-page', 'start-failures'];
const e2e = (names: readonly string[]) => names.map((name) => `test/e2e/${name}.e2e.spec.ts`);

// End-to-end tests start whole Switchboards (several processes with Baileys each): one file
// at a time, so two of them never compete for the machine's two cores. The e2e suite runs twice:
// in the emulator's default LID addressing (the network as it is now) with everything else, and
// again with contacts named by their phone numbers (`pn`, the network as it was).
const shared = projectTestConfig({ fileParallelism: false, testTimeout: 120_000, hookTimeout: 180_000, setupFiles: ['test/setup/documented-responses.ts'] });
// A project adds its `include` to the root's: the root keeps none, each project names its own.
const { include, ...test } = shared.test!;

export default defineConfig({
  ...shared,
  test: {
    ...test,
    projects: [
      { extends: true, test: { name: 'app', include } },
      {
        extends: true,
        test: {
          name: 'e2e-pn',
          include: ['test/e2e/*.e2e.spec.ts'],
          exclude: e2e([...EACH_CASE_IN_BOTH_ADDRESSINGS, ...NO_CONTACTS]),
          env: { SWITCHBOARD_EMULATOR_ADDRESSING: 'pn' },
        },
      },
    ],
  },
});
