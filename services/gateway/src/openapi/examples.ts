import { HTTP_EXAMPLES } from '@switchboard/contracts';

type ExampleName = keyof typeof HTTP_EXAMPLES;

/** Which HTTP_EXAMPLES entry illustrates each endpoint's body, query and success response. */
export const ENDPOINT_EXAMPLES: Readonly<Record<string, { body?: ExampleName; query?: ExampleName; response: ExampleName }>> = {
  'sessions.create': { body: 'createSessionBody', response: 'createSessionResponse' },
  'sessions.list': { query: 'listSessionsQuery', response: 'listSessionsResponse' },
  'sessions.get': { response: 'getSessionResponse' },
  'sessions.qr': { response: 'sessionQrResponse' },
  'sessions.delete': { response: 'deleteSessionResponse' },
  'sessions.contact': { response: 'contactCheckResponse' },
  'messages.sendText': { body: 'sendTextBody', response: 'sendMessageResponse' },
  'messages.sendMedia': { body: 'sendMediaBody', response: 'sendMediaResponse' },
  'messages.sendLocation': { body: 'sendLocationBody', response: 'sendMessageResponse' },
  'messages.sendButtons': { body: 'sendButtonsBody', response: 'sendMessageResponse' },
  'messages.sendPoll': { body: 'sendPollBody', response: 'sendMessageResponse' },
  'messages.get': { response: 'getMessageResponse' },
  'admin.createAccount': { body: 'createAccountBody', response: 'createAccountResponse' },
  'admin.getAccount': { response: 'accountResponse' },
  'admin.patchAccount': { body: 'patchAccountBody', response: 'accountResponse' },
  'admin.closeAccount': { response: 'closeAccountResponse' },
  'admin.eraseAccount': { response: 'eraseAccountResponse' },
  'admin.createKey': { body: 'createKeyBody', response: 'createKeyResponse' },
  'admin.revokeKey': { response: 'revokeKeyResponse' },
  'health.healthz': { response: 'healthzResponse' },
  'health.readyz': { response: 'readyzResponse' },
};

export function example(name: ExampleName | undefined): unknown {
  return name === undefined ? undefined : HTTP_EXAMPLES[name];
}
