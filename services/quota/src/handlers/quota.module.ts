import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { QuotaApi } from '../application/quota-api.js';
import { QUOTA_READINESS, QuotaController } from './quota.controller.js';
import type { QuotaReadiness } from './quota.controller.js';

/** The quota microservice: its handlers over an already opened QuotaApi. */
@Module({})
export class QuotaModule {
  static with(api: QuotaApi, readiness: QuotaReadiness): DynamicModule {
    return {
      module: QuotaModule,
      controllers: [QuotaController],
      providers: [{ provide: QuotaApi, useValue: api }, { provide: QUOTA_READINESS, useValue: readiness }],
    };
  }
}
