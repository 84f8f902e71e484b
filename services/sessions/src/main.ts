import { runServiceProcess } from '@switchboard/service-kit';
import { startSessionsService } from './service.js';

// Distributed entry point: one sessions process on NATS. A stop signal closes the connections
// WITHOUT logging out (credentials stay), so the next start resumes every connected session.
runServiceProcess('sessions', startSessionsService);
