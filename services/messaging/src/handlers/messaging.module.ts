import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { MessagingApi } from './messaging-api.js';
import { MessagingController } from './messaging.controller.js';

/** The messaging microservice: its handlers over an already assembled MessagingApi. */
@Module({})
export class MessagingModule {
  static with(api: MessagingApi): DynamicModule {
    return { module: MessagingModule, controllers: [MessagingController], providers: [{ provide: MessagingApi, useValue: api }] };
  }
}
