export { specFor } from './decider-spec.js';
export type { Decider } from './decider-spec.js';
