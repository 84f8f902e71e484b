import { z } from 'zod';

/** A JSON Schema object as fastify's serializer compiler (fast-json-stringify) takes it. */
export type SerializationSchema = Record<string, unknown>;

/**
 * Keywords that only validate: the serializer needs the shape (types, properties, required,
 * items, unions and constants), not the patterns and bounds. Dropped, they cost nothing when a
 * union's branch is chosen; documentation keywords go too.
 */
const VALIDATION_ONLY = new Set([
  '$schema', 'description', 'example', 'examples', 'title', 'pattern', 'format', 'minLength', 'maxLength',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'enum', 'propertyNames', 'default',
]);

/** A root with none of these says nothing about the body's shape. */
const SHAPED = ['type', 'anyOf', 'oneOf', 'allOf', 'const'];

const compiled = new WeakMap<z.ZodType, SerializationSchema | null>();

/**
 * The schema a success body of `response` is serialised by, or null where the contract cannot be
 * one: a transform or a default (the body a handler returns is then not yet what is sent), or a
 * type JSON Schema has no word for. Where there is one, the body is written by a compiled
 * serializer that emits only the properties the contract names (what zod's strip did) and fails
 * (500) on a missing required field or a value of the wrong type, instead of a full zod parse of
 * every response: the values were checked where they entered the process (the HTTP request, the
 * bus reply from another process, the events a read model was built from).
 */
export function serializationSchemaOf(response: z.ZodType): SerializationSchema | null {
  let schema = compiled.get(response);
  if (schema === undefined) {
    schema = build(response);
    compiled.set(response, schema);
  }
  return schema;
}

function build(response: z.ZodType): SerializationSchema | null {
  let output: unknown;
  let input: unknown;
  try {
    output = shapeOnly(z.toJSONSchema(response, { io: 'output', unrepresentable: 'throw' }));
    input = shapeOnly(z.toJSONSchema(response, { io: 'input', unrepresentable: 'throw' }));
  } catch {
    return null;
  }
  const text = JSON.stringify(output);
  // Input and output differ where the schema changes the value (defaults, transforms, pipes).
  if (JSON.stringify(input) !== text) return null;
  // References would need the definitions resolved by the compiler: left to zod. So is a body of
  // any shape (bytes, checked by a refinement alone).
  if (text.includes('"$ref"') || !SHAPED.some((key) => key in (output as object))) return null;
  return output as SerializationSchema;
}

/** The schema without validation-only keywords; `X | null` of a scalar as `type: [X, 'null']`. */
function shapeOnly(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shapeOnly);
  if (typeof node !== 'object' || node === null) return node;
  const source = node as Record<string, unknown>;
  const nullableScalar = nullableScalarType(source['anyOf']);
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (VALIDATION_ONLY.has(key)) continue;
    // Extra properties are never written (the serializer's default); `false` would also make a
    // union's branch test refuse a value that merely carries more than the contract names.
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'properties') result[key] = Object.fromEntries(Object.entries(value as object).map(([name, sub]) => [name, shapeOnly(sub)]));
    else if (key === 'anyOf' && nullableScalar) result['type'] = nullableScalar;
    else result[key] = shapeOnly(value);
  }
  return result;
}

/** `[X, 'null']` for `anyOf: [{ type: X }, { type: 'null' }]` with X a scalar type, else undefined. */
function nullableScalarType(anyOf: unknown): string[] | undefined {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return undefined;
  const types = anyOf.map((branch) => (branch as { type?: unknown }).type);
  const other = types.find((type) => type !== 'null');
  if (!types.includes('null') || typeof other !== 'string' || other === 'object' || other === 'array') return undefined;
  const branch = anyOf.find((b) => (b as { type?: unknown }).type === other) as Record<string, unknown>;
  // `const` or nested keywords beyond validation-only ones would be lost by flattening.
  if (Object.keys(branch).some((key) => key !== 'type' && !VALIDATION_ONLY.has(key))) return undefined;
  return [other, 'null'];
}
