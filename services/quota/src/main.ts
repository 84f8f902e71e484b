import { runServiceProcess } from '@switchboard/service-kit';
import { startQuotaService } from './service.js';

// Distributed entry point: one quota-service process on NATS.
runServiceProcess('quota', startQuotaService, (service) => {
  if (!service.bootstrap?.apiKey) return;
  // The only place a key is ever printed: one plain stdout line, never through the logger.
  process.stdout.write(`Switchboard bootstrap account ${service.bootstrap.accountId} (plan ${service.bootstrap.plan}); API key, shown once: ${service.bootstrap.apiKey}\n`);
});
