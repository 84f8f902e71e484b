import { runServiceProcess } from '@switchboard/service-kit';
import { startEventsService } from './service.js';

// Distributed entry point: one events-service process on NATS. Its intake checkpoints and
// deliveries are in its own store, so a kill at any point resumes where the last commit left it.
runServiceProcess('events', startEventsService);
