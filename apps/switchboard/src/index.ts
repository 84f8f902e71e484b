export { startSwitchboard } from './switchboard.js';
export type { RunningSwitchboard, StartSwitchboardOptions } from './switchboard.js';
