/**
 * Just enough of the protobuf wire format to read OTLP trace exports: fields by number, varints,
 * length-delimited bytes and fixed 64-bit values. The OpenTelemetry packages installed encode
 * OTLP themselves and ship no decoder, and the processes under test must export what they export
 * in production (http/protobuf), so the test collector reads the bytes itself.
 */
export interface WireField {
  field: number;
  /** Varint value (wire type 0). */
  varint?: bigint;
  /** Length-delimited bytes (wire type 2) or the 8/4 raw bytes of fixed types (1, 5). */
  bytes?: Uint8Array;
}

export function readFields(buffer: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++];
      if (byte === undefined) throw new Error('truncated varint');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  const take = (length: number): Uint8Array => {
    if (at + length > buffer.length) throw new Error('truncated field');
    const bytes = buffer.subarray(at, at + length);
    at += length;
    return bytes;
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const field = key >>> 3;
    switch (key & 7) {
      case 0: fields.push({ field, varint: varint() }); break;
      case 1: fields.push({ field, bytes: take(8) }); break;
      case 2: fields.push({ field, bytes: take(Number(varint())) }); break;
      case 5: fields.push({ field, bytes: take(4) }); break;
      default: throw new Error(`unsupported wire type ${key & 7}`);
    }
  }
  return fields;
}

/** Every length-delimited value of `field`. */
export function messages(fields: WireField[], field: number): Uint8Array[] {
  return fields.filter((f) => f.field === field && f.bytes).map((f) => f.bytes as Uint8Array);
}

export function text(fields: WireField[], field: number): string | undefined {
  const bytes = messages(fields, field)[0];
  return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
}

export function hex(fields: WireField[], field: number): string | undefined {
  const bytes = messages(fields, field)[0];
  return bytes === undefined || bytes.length === 0 ? undefined : Buffer.from(bytes).toString('hex');
}

export function varintOf(fields: WireField[], field: number): number | undefined {
  const value = fields.find((f) => f.field === field && f.varint !== undefined)?.varint;
  return value === undefined ? undefined : Number(value);
}
