export { startEmulator } from './emulator.js';
export type { EmulatorOptions, RunningEmulator } from './emulator.js';
export { EmulatorControlClient, EmulatorControlError } from './control-client.js';
export type { InboundBody } from './control-client.js';
export type { DeviceStatus } from './devices.js';
export type { SentInbound } from './inbound.js';
export type { Addressing } from './inbound-spec.js';
export type { ContactSettings, ReceivedMessage, ReceivedType, PairingSchedule } from './model.js';
export type { ScanResult } from './pairing-service.js';
