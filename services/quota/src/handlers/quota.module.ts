import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { QuotaApi } from '../application/quota-api.js';
import { QuotaController } from './quota.controller.js';

/** The quota microservice: its handlers over an already opened QuotaApi. */
@Module({})
export class QuotaModule {
  static with(api: QuotaApi): DynamicModule {
    return { module: QuotaModule, controllers: [QuotaController], providers: [{ provide: QuotaApi, useValue: api }] };
  }
}
