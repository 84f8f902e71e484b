import { Catch } from '@nestjs/common';
import type { RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { throwError } from 'rxjs';
import type { Observable } from 'rxjs';

/**
 * Hands a handler's error to the bus unchanged. Nest's default RPC filter replaces every error
 * that is not an `RpcException` with `{ status: 'error', message: 'Internal server error' }`,
 * which would erase domain error codes (`QUOTA_EXCEEDED`, …); the bus already decides what
 * may leave the process (`toRemoteErrorBody`). Register it with `app.useGlobalFilters(...)`.
 */
@Catch()
export class BusExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => (exception instanceof RpcException ? exception.getError() : exception));
  }
}
