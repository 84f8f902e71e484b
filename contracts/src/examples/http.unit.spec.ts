import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AccountResponse, CloseAccountResponse, CreateAccountBody, EraseAccountResponse, CreateAccountResponse, CreateKeyBody, CreateKeyResponse, PatchAccountBody, RevokeKeyResponse } from '../admin/http.js';
import { ErrorEnvelope } from '../errors/envelope.js';
import { HealthzResponse, ReadyzResponse } from '../health/http.js';
import { GetMessageResponse } from '../messages/history-http.js';
import {
  SendButtonsBody, SendPollBody,
  SendLocationBody,
  SendMediaBody,
  SendMediaResponse,
  SendMessageResponse,
  SendTextBody,
} from '../messages/http.js';
import {
  ContactCheckResponse,
  CreateSessionBody,
  CreateSessionResponse,
  DeleteSessionResponse,
  GetSessionResponse,
  ListSessionsQuery,
  ListSessionsResponse,
  SessionQrResponse,
} from '../sessions/http.js';
import { HTTP_EXAMPLES as EX } from './http.js';

const cases: [keyof typeof EX, z.ZodType][] = [
  ['createSessionBody', CreateSessionBody],
  ['createSessionResponse', CreateSessionResponse],
  ['getSessionResponse', GetSessionResponse],
  ['listSessionsQuery', ListSessionsQuery],
  ['listSessionsResponse', ListSessionsResponse],
  ['sessionQrResponse', SessionQrResponse],
  ['deleteSessionResponse', DeleteSessionResponse],
  ['contactCheckResponse', ContactCheckResponse],
  ['sendTextBody', SendTextBody],
  ['sendMediaBody', SendMediaBody],
  ['sendLocationBody', SendLocationBody],
  ['sendButtonsBody', SendButtonsBody],
  ['sendPollBody', SendPollBody],
  ['sendMessageResponse', SendMessageResponse],
  ['sendMessagePendingResponse', SendMessageResponse],
  ['sendMediaResponse', SendMediaResponse],
  ['getMessageResponse', GetMessageResponse],
  ['getFailedMessageResponse', GetMessageResponse],
  ['createAccountBody', CreateAccountBody],
  ['createAccountResponse', CreateAccountResponse],
  ['accountResponse', AccountResponse],
  ['closeAccountResponse', CloseAccountResponse],
  ['eraseAccountResponse', EraseAccountResponse],
  ['patchAccountBody', PatchAccountBody],
  ['createKeyBody', CreateKeyBody],
  ['createKeyResponse', CreateKeyResponse],
  ['revokeKeyResponse', RevokeKeyResponse],
  ['validationErrorResponse', ErrorEnvelope],
  ['dailyLimitErrorResponse', ErrorEnvelope],
  ['healthzResponse', HealthzResponse],
  ['readyzResponse', ReadyzResponse],
];

describe('every example shape of the spec parses with its schema', () => {
  it('covers every example', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(Object.keys(EX).sort());
  });

  it.each(cases)('%s', (name, schema) => {
    const result = schema.safeParse(EX[name]);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('keeps response data unchanged apart from defaults (nothing silently dropped)', () => {
    expect(GetMessageResponse.parse(EX.getFailedMessageResponse)).toEqual(EX.getFailedMessageResponse);
    expect(ListSessionsResponse.parse(EX.listSessionsResponse)).toEqual(EX.listSessionsResponse);
    expect(SendButtonsBody.parse(EX.sendButtonsBody)).toEqual(EX.sendButtonsBody);
  });

  it('parses the list query example into numbers', () => {
    expect(ListSessionsQuery.parse(EX.listSessionsQuery)).toEqual({ limit: 10, offset: 0, status: 'connected' });
  });

  it('accepts a create-session body without a name', () => {
    expect(CreateSessionBody.parse({})).toEqual({});
  });

  it('strips fields the create response must not carry', () => {
    const data = { ...EX.createSessionResponse.data, name: 'x', createdAt: '2026-11-21T10:15:30.000Z' };
    expect(CreateSessionResponse.parse({ success: true, data }).data).toEqual(EX.createSessionResponse.data);
  });
});
