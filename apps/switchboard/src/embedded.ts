import { exitOnStartFailure, portVariablesOf, startMemoryReclaimer } from '@switchboard/service-kit';
import { BOOTSTRAP_ACCOUNT_ID } from '@switchboard/quota';
import { startSwitchboard } from './switchboard.js';
import type { RunningSwitchboard } from './switchboard.js';

// `npm start`: the whole of Switchboard in this process. The bootstrap key goes to stdout once,
// on the first start, and never into the JSON logs. A start that fails says why in one line per
// problem (no stack) and exits 1; the port is bound before the first account is created, so a
// failed first start never swallows the key it would have shown.
let keyShown = false;
let switchboard: RunningSwitchboard;
try {
  switchboard = await startSwitchboard({
    onBootstrapKey: (apiKey, accountId) => {
      keyShown = true;
      process.stdout.write(`\nFirst start: account ${accountId} was created. Its API key (shown once):\n\n  ${apiKey}\n\n`);
    },
  });
} catch (error) {
  exitOnStartFailure('switchboard', error, portVariablesOf(process.env));
}
let stopping = false;
// Before anything says the server listens: a supervisor may signal as soon as it reads that line,
// and a signal with no handler yet kills the process outright, with nothing closed.
// `on`, not `once`: a second signal while stopping (npm start forwards Ctrl-C to the process that
// the terminal already signalled) must not kill it halfway through its close.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void switchboard.close().then(() => process.exit(0));
  });
}
// Large bodies (inline media) leave garbage that an idle process would otherwise keep for good.
startMemoryReclaimer();
process.stdout.write(`Switchboard listening on ${switchboard.url} (docs: ${switchboard.url}/docs)\n`);
if (!keyShown && !switchboard.config.bootstrapApiKey) {
  process.stdout.write(`Accounts exist in ${switchboard.config.dataDir}; the first key was shown on the first start only. A new key: npx switchboard keys create ${BOOTSTRAP_ACCOUNT_ID}\n`);
}
if (switchboard.emulator) {
  process.stdout.write(`Chat network emulator: ${switchboard.emulator.wsUrl}, control API ${switchboard.emulator.controlUrl}\n`);
}
