import { z } from "zod";

// One dialect per layer (ARCHITECTURE.md "Names on the wire and in the code"): the REST wire is the
// contract's snake_case, as the zod schemas of this package spell it; core and the console speak
// camelCase. These are the one mapping between the two, driven by the wire schemas themselves: only
// the keys a schema's objects declare are renamed (and copied, so nothing undeclared crosses), while
// the keys of records (metadata, tags, a document's own `doc_metadata`) and `unknown` values are
// data and cross untouched.

/** `cc_pair_id` → `ccPairId`. */
export type CamelKey<Key extends string> = Key extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelKey<Tail>>}` : Key;

/** A wire type with every object key in camelCase, deeply (a Date is a value): what core takes and returns. */
export type Camel<T> = T extends Date
  ? T
  : T extends readonly (infer Item)[]
    ? Camel<Item>[]
    : T extends object
      ? { [Key in keyof T as Key extends string ? CamelKey<Key> : Key]: Camel<T[Key]> }
      : T;

/** The camelCase form of a wire schema's (parsed) value. */
export type CamelOf<Schema extends z.ZodType> = Camel<z.output<Schema>>;

export function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

type Mapper = (value: unknown) => unknown;
type Direction = "toWire" | "fromWire";

const compiled: Record<Direction, WeakMap<z.ZodType, Mapper>> = { toWire: new WeakMap(), fromWire: new WeakMap() };
const identity: Mapper = (value) => value;

/** A core (camelCase) value as the wire schema spells it: what a REST handler answers. */
export function toWire<Schema extends z.ZodType>(schema: Schema, value: CamelOf<Schema>): z.output<Schema> {
  return mapperFor(schema, "toWire")(value) as z.output<Schema>;
}

/** A value parsed with a wire schema, in core's camelCase: what a REST handler passes on. */
export function fromWire<Schema extends z.ZodType>(schema: Schema, value: z.output<Schema>): CamelOf<Schema> {
  return mapperFor(schema, "fromWire")(value) as CamelOf<Schema>;
}

/**
 * A tRPC input for a request the console sends in camelCase: the value is renamed to the wire's keys
 * and parsed with the wire schema itself (every pydantic check, default and coercion, as REST applies
 * them), then handed on in camelCase. An issue's path names the wire field.
 */
export function camelInput<Schema extends z.ZodType>(schema: Schema): z.ZodType<CamelOf<Schema>, unknown> {
  return z.unknown().transform((value, ctx) => {
    const parsed = schema.safeParse(mapperFor(schema, "toWire")(value));
    if (parsed.success) return fromWire(schema, parsed.data);
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  });
}

/** A mapper for each schema and direction, built once: a walk over the value only, not the schema. */
function mapperFor(schema: z.ZodType, direction: Direction): Mapper {
  let mapper = compiled[direction].get(schema);
  if (mapper) return mapper;
  // A placeholder first, so a recursive (lazy) schema finds itself.
  let built: Mapper = identity;
  compiled[direction].set(schema, (value) => built(value));
  built = buildMapper(schema, direction);
  compiled[direction].set(schema, built);
  mapper = built;
  return mapper;
}

/** The part of a schema whose shape its values have (wrappers and transforms stripped). */
function structural(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def;
  switch (def.type) {
    case "pipe": {
      const pipe = schema as z.ZodPipe;
      // A preprocess (transform → schema) has the shape of its output; a trailing transform keeps its input's.
      return structural((pipe.out._zod.def.type === "transform" ? pipe.in : pipe.out) as z.ZodType);
    }
    case "lazy":
      return structural((schema as z.ZodLazy).unwrap() as z.ZodType);
    default:
      return schema;
  }
}

function buildMapper(schema: z.ZodType, direction: Direction): Mapper {
  const target = structural(schema);
  const def = target._zod.def;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional": {
      const inner = mapperFor((def as unknown as { innerType: z.ZodType }).innerType, direction);
      return (value) => (value === null || value === undefined ? value : inner(value));
    }
    case "object":
      return objectMapper(target as z.ZodObject, direction);
    case "array": {
      const item = mapperFor((target as z.ZodArray).element as z.ZodType, direction);
      return (value) => (Array.isArray(value) ? value.map(item) : value);
    }
    case "record": {
      const item = mapperFor((target as z.ZodRecord).valueType as z.ZodType, direction);
      if (item === identity) return identity;
      return (value) => (isPlainObject(value) ? Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, item(entry)])) : value);
    }
    case "union": {
      const options = (target as z.ZodUnion).options.map((option) => ({
        accepts: shapeTest(option as z.ZodType, direction),
        map: mapperFor(option as z.ZodType, direction),
      }));
      return (value) => (options.find((option) => option.accepts(value))?.map ?? identity)(value);
    }
    default:
      // Scalars, enums, literals, `unknown`: data, never renamed.
      return identity;
  }
}

function objectMapper(schema: z.ZodObject, direction: Direction): Mapper {
  const fields = Object.entries(schema.shape).map(([wireKey, field]) => {
    const coreKey = camelKey(wireKey);
    const [from, to] = direction === "toWire" ? [coreKey, wireKey] : [wireKey, coreKey];
    return { from, to, map: mapperFor(field as z.ZodType, direction) };
  });
  return (value) => {
    if (!isPlainObject(value)) return value;
    const mapped: Record<string, unknown> = {};
    for (const { from, to, map } of fields) {
      const field = value[from];
      if (field !== undefined) mapped[to] = map(field);
    }
    return mapped;
  };
}

/** Whether a value is of a union option's kind: an object with each of the option's required keys, an array, or (other options) anything. */
function shapeTest(option: z.ZodType, direction: Direction): (value: unknown) => boolean {
  const target = structural(option);
  if (target._zod.def.type === "array") return Array.isArray;
  if (target._zod.def.type !== "object") return (value) => !isPlainObject(value) && !Array.isArray(value);
  const required = Object.entries((target as z.ZodObject).shape)
    .filter(([, field]) => (field as z.ZodType)._zod.optin !== "optional")
    .map(([wireKey]) => (direction === "toWire" ? camelKey(wireKey) : wireKey));
  return (value) => isPlainObject(value) && required.every((key) => key in value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The camelCase twin of a wire schema, for the console's tRPC procedures (which pass core's values
 * through): the same fields, checks and enums, each object key in camelCase. Transforms and
 * preprocessing (the REST parser's pydantic coercions) are left out: the console sends typed values.
 */
export function camelSchema<Schema extends z.ZodType>(schema: Schema): z.ZodType<CamelOf<Schema>> {
  return buildCamelSchema(schema) as unknown as z.ZodType<CamelOf<Schema>>;
}

function buildCamelSchema(schema: z.ZodType): z.ZodType {
  const target = structural(schema);
  const def = target._zod.def;
  switch (def.type) {
    case "optional":
      return buildCamelSchema((target as z.ZodOptional).unwrap() as z.ZodType).optional();
    case "nullable":
      return buildCamelSchema((target as z.ZodNullable).unwrap() as z.ZodType).nullable();
    case "default": {
      const wrapped = target as z.ZodDefault;
      return buildCamelSchema(wrapped.unwrap() as z.ZodType).default(wrapped._zod.def.defaultValue as never);
    }
    case "object":
      return z.object(
        Object.fromEntries(Object.entries((target as z.ZodObject).shape).map(([key, field]) => [camelKey(key), buildCamelSchema(field as z.ZodType)])),
      );
    case "array":
      return z.array(buildCamelSchema((target as z.ZodArray).element as z.ZodType));
    case "record": {
      const record = target as z.ZodRecord;
      return z.record(record.keyType, buildCamelSchema(record.valueType as z.ZodType));
    }
    case "union": {
      const options = (target as z.ZodUnion).options.map((option) => buildCamelSchema(option as z.ZodType));
      return z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    }
    default:
      return target;
  }
}
