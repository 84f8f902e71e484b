export { undocumentedResponses } from './documented-responses.js';
export type { ObservedResponse } from './documented-responses.js';
