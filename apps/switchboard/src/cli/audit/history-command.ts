import type { SwitchboardConfig } from '@switchboard/service-kit';
import { AUDITED_SERVICES } from '../args.js';
import { ProgressBar } from '../progress.js';
import { BufferedWriter } from './buffered-writer.js';
import { withAuditedStores } from './audited-stores.js';
import { inWindow } from './fact-query.js';
import type { FactQuery, TimeWindow } from './fact-query.js';
import { ScanProgress, factSources } from './fact-sources.js';
import { factJson, factLine, historySummary } from './history-output.js';
import { mergedFacts } from './merged-facts.js';
import { ContentOpener } from './opened-contents.js';

/**
 * `audit history`: the facts of a message, session, account or contact in order, printed as they
 * are found (a long history is never held in memory): one line each, or with `--json` one JSON
 * document `{"query", "facts": [...], "count"}` written as it goes.
 */
export async function printHistory(config: SwitchboardConfig, query: FactQuery, window: TimeWindow, json: boolean, out: NodeJS.WriteStream): Promise<void> {
  // On a terminal the lines themselves show progress; the bar is for output sent to a file or a pipe.
  const progress = new ScanProgress(out.isTTY ? undefined : new ProgressBar('history', 'events scanned'));
  const writer = new BufferedWriter(out);
  const contents = await ContentOpener.open(config);
  try {
    await printFacts(config, query, window, json, { progress, writer, contents });
  } finally {
    await contents.close();
  }
}

async function printFacts(
  config: SwitchboardConfig,
  query: FactQuery,
  window: TimeWindow,
  json: boolean,
  { progress, writer, contents }: { progress: ScanProgress; writer: BufferedWriter; contents: ContentOpener },
): Promise<void> {
  await withAuditedStores(config, AUDITED_SERVICES, async (stores) => {
    const sources = await factSources(stores, query, progress);
    if (json) await writer.write(`{"query":${JSON.stringify({ ...query, from: window.from ?? null, to: window.to ?? null })},"facts":[`);
    let count = 0;
    for await (const batch of mergedFacts(sources)) {
      for (const fact of await contents.openAll(batch)) {
        if (!inWindow(window, fact.event.recordedAt)) continue;
        const text = json ? `${count === 0 ? '' : ','}\n${JSON.stringify(factJson(fact))}` : `${factLine(fact)}\n`;
        count += 1;
        await writer.write(text);
      }
    }
    progress.end();
    await writer.write(json ? `\n],"count":${count}}\n` : `${historySummary(count, progress.events, query, window)}\n`);
    await writer.flush();
  });
}
