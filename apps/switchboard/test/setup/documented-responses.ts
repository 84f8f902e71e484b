import { undocumentedResponses } from '@switchboard/gateway/testing';
import { afterAll, expect } from 'vitest';
import { observedResponses } from '../support/http.js';

// Every status (and error code) the end-to-end tests of this file saw is one the OpenAPI document
// lists for that operation.
afterAll(() => {
  expect(undocumentedResponses(observedResponses), 'responses missing from /v1/openapi.json').toEqual([]);
});
