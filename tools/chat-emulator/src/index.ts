export { startEmulator } from './emulator.js';
export type { EmulatorOptions, RunningEmulator } from './emulator.js';
export { EmulatorControlClient, EmulatorControlError } from './control-client.js';
export type { ContactSettings, ReceivedMessage, ReceivedType, PairingSchedule } from './model.js';
export type { ScanResult } from './pairing-service.js';
