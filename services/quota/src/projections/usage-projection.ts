import type { DatabaseSync } from 'node:sqlite';
import { quotaEventParser, STREAM_CATEGORY } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Projection } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';

/** Usage streams -> `quota_daily_usage`: units in use per account per UTC day. */
export function usageProjection(db: DatabaseSync): Projection {
  const add = db.prepare(
    `INSERT INTO quota_daily_usage (account_id, day, used) VALUES (?, ?, ?)
     ON CONFLICT (account_id, day) DO UPDATE SET used = used + excluded.used`,
  );
  return {
    name: 'quota-usage-v1',
    category: STREAM_CATEGORY.usage,
    apply(recorded: RecordedEvent): void {
      const event = quotaEventParser.decode(toRawEvent(recorded));
      if (event.type === 'DailyQuotaReserved') add.run(event.data.accountId, event.data.day, 1);
      else if (event.type === 'DailyQuotaRefunded') add.run(event.data.accountId, event.data.day, -1);
    },
  };
}
