import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { EventsApi } from './events-api.js';
import { EventsController } from './events.controller.js';

/** The events microservice: its handlers over an already assembled EventsApi. */
@Module({})
export class EventsModule {
  static with(api: EventsApi): DynamicModule {
    return { module: EventsModule, controllers: [EventsController], providers: [{ provide: EventsApi, useValue: api }] };
  }
}
