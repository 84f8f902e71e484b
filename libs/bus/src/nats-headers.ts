import { headers as natsHeaders } from '@nats-io/transport-node';
import type { MsgHdrs } from '@nats-io/transport-node';
import type { BusHeaders } from './bus.js';

/** Bus headers as NATS headers; undefined when empty, so plain messages stay header-less. */
export function toNatsHeaders(headers: BusHeaders): MsgHdrs | undefined {
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const natsHeaderSet = natsHeaders();
  for (const [name, value] of entries) natsHeaderSet.set(name, value);
  return natsHeaderSet;
}

/** NATS headers as bus headers: lowercase names, first value of each. */
export function fromNatsHeaders(headers: MsgHdrs | undefined): BusHeaders {
  const busHeaders: BusHeaders = {};
  if (!headers) return busHeaders;
  for (const [name, values] of headers) {
    const first = values[0];
    if (first !== undefined) busHeaders[name.toLowerCase()] = first;
  }
  return busHeaders;
}
