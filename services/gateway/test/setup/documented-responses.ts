import { afterAll, expect } from 'vitest';
import { undocumentedResponses } from '../../src/testing/index.js';
import { observedResponses } from '../support.js';

// Every status (and error code) a test of this file saw from a gateway route is one the OpenAPI
// document lists for that operation.
afterAll(() => {
  expect(undocumentedResponses(observedResponses), 'responses missing from /v1/openapi.json').toEqual([]);
});
