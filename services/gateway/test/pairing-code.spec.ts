import { SessionsSubjects } from '@switchboard/contracts';
import type { CreateSessionCommand } from '@switchboard/contracts';
import type { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createAccount, quotaBus, startGateway } from './support.js';

const QR = 'data:image/png;base64,iVBORw0KGgo=';

describe('POST /v1/sessions with phoneNumber (pairing by code)', () => {
  let bus: InProcessBus;
  let app: FastifyInstance;
  const creates: CreateSessionCommand[] = [];

  beforeEach(async () => {
    ({ bus } = await quotaBus());
    creates.length = 0;
    // Stands in for the sessions service: answers a code when asked for one.
    await bus.subscribe(SessionsSubjects.create.subject, (message) => {
      const command = SessionsSubjects.create.request.parse(message.data);
      creates.push(command);
      const code = command.phoneNumber ? { pairingCode: 'ABCD-EFGH' } : {};
      return { sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', qrCode: QR, ...code, status: 'pending' };
    });
    app = await startGateway(bus);
  });
  afterEach(async () => {
    await app.close();
    await bus.close();
  });

  it('asks the sessions service for a code for the number and answers 201 with pairingCode beside the QR', async () => {
    const { apiKey } = await createAccount(app);
    const response = await app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(apiKey), payload: { phoneNumber: '15551234567' } });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ success: true, data: { sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', qrCode: QR, pairingCode: 'ABCD-EFGH', status: 'pending' } });
    expect(creates[0]?.phoneNumber).toBe('15551234567');
  });

  it('refuses what is not an international number (digits only, 7–15, no leading 0) with 400 at phoneNumber, asking nothing', async () => {
    const { apiKey } = await createAccount(app);
    for (const phoneNumber of ['+15551234567', '0151234567', '123456', '1555123456789012', '1555 123 4567', 15551234567, '']) {
      const response = await app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(apiKey), payload: { phoneNumber } });
      expect(response.statusCode, String(phoneNumber)).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ path: 'phoneNumber', message: expect.stringContaining('phoneNumber') }],
      });
    }
    expect(creates).toHaveLength(0);
  });
});
