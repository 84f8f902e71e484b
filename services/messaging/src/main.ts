import { runServiceProcess } from '@switchboard/service-kit';
import { startMessagingService } from './service.js';

// Distributed entry point: one messaging-service process on NATS. Deliveries still running at a
// stop are recorded as accepted in their streams: the next start (or another replica's sweep)
// finishes them with the same message ids.
runServiceProcess('messaging', startMessagingService);
