import { startMemoryReclaimer } from '@switchboard/service-kit';
import { startSwitchboard } from './switchboard.js';

// `npm start`: the whole of Switchboard in this process. The bootstrap key goes to stdout once,
// on the first start, and never into the JSON logs.
const switchboard = await startSwitchboard({
  onBootstrapKey: (apiKey, accountId) => {
    process.stdout.write(`\nFirst start: account ${accountId} was created. Its API key (shown once):\n\n  ${apiKey}\n\n`);
  },
});
// Large bodies (inline media) leave garbage that an idle process would otherwise keep for good.
startMemoryReclaimer();
process.stdout.write(`Switchboard listening on ${switchboard.url} (docs: ${switchboard.url}/docs)\n`);
if (switchboard.emulator) {
  process.stdout.write(`Chat network emulator: ${switchboard.emulator.wsUrl}, control API ${switchboard.emulator.controlUrl}\n`);
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    void switchboard.close().then(() => process.exit(0));
  });
}
