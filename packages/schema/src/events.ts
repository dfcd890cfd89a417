import { z } from "zod";

/** What an event tells (docs/decisions.md "Events"). */
export const EventTypeSchema = z.enum([
  "document.indexed",
  "document.failed",
  "document.deleted",
  "attempt.finished",
  "rebuild.finished",
]);
export type EventType = z.infer<typeof EventTypeSchema>;

/** A closed attempt's or a finished rebuild's counts. */
export const EventCountsSchema = z.object({
  docs_indexed: z.int(),
  docs_failed: z.int(),
});

/**
 * One event, as a webhook delivers it and the stream sends it. `id` is stable: a delivery sent again
 * carries the same one. Fields that do not apply to the type are null.
 */
export const SvcEventSchema = z.object({
  id: z.string().meta({ description: "Stable: `evt_` and a number; the same on every delivery of the event" }),
  type: EventTypeSchema,
  time: z.iso.datetime({ offset: true }),
  document_id: z.string().nullable(),
  cc_pair_ids: z.array(z.int()),
  version: z.int().nullable(),
  status: z.string().nullable(),
  error: z.string().nullable(),
  counts: EventCountsSchema.nullable(),
});
export type SvcEvent = z.infer<typeof SvcEventSchema>;

/** The wire id of an event row. */
export function eventWireId(id: bigint | number | string): string {
  return `evt_${String(id)}`;
}

/** The largest event id: the outbox's ids are PostgreSQL bigints. */
const MAX_EVENT_ID = 9_223_372_036_854_775_807n;
const EVENT_ID_PATTERN = /^evt_(0|[1-9][0-9]{0,18})$/;

/**
 * An event id as a client sends it back (`Last-Event-ID`, `after`): `evt_` and a number; `evt_0` is before every event.
 * Past a bigint it is a 422 here, not PostgreSQL's out-of-range error.
 */
export const EventIdSchema = z
  .string()
  .regex(EVENT_ID_PATTERN, "an event id: evt_ and a number")
  // Checked after the pattern too when it fails (zod runs every check): only a number is compared.
  .refine((id) => !EVENT_ID_PATTERN.test(id) || BigInt(id.slice("evt_".length)) <= MAX_EVENT_ID, `an event id is at most evt_${MAX_EVENT_ID}`)
  .transform((id) => BigInt(id.slice("evt_".length)));

/** Comma-separated values of a query parameter, each trimmed; empty ones are dropped. */
const commaList = <Item extends z.ZodType<unknown, string>>(item: Item) =>
  z
    .string()
    .transform((value) => value.split(",").map((part) => part.trim()).filter((part) => part !== ""))
    .pipe(z.array(item).min(1).max(MAX_EVENT_FILTER_VALUES));

/** At most this many pairs or types in a stream's filter. */
export const MAX_EVENT_FILTER_VALUES = 100;

/** GET /svc-api/events's query: where to resume, and which events. */
export const EventStreamQuerySchema = z.object({
  after: EventIdSchema.optional(),
  cc_pair_id: commaList(z.string().regex(/^[1-9][0-9]{0,9}$/, "a pair id").transform(Number).pipe(z.int().max(2_147_483_647))).optional(),
  types: commaList(EventTypeSchema).optional(),
});
export type EventStreamQuery = z.infer<typeof EventStreamQuerySchema>;

/**
 * The stream's notice that the position it was asked to resume from is no longer kept (older than
 * the retention window): events after it may be missing, and the stream goes on from the oldest kept.
 */
export const EventsMissedSchema = z.object({
  type: z.literal("events.missed"),
  after: z.string().meta({ description: "The event id the stream was asked to resume after" }),
  detail: z.string(),
});
export type EventsMissed = z.infer<typeof EventsMissedSchema>;

/** What one message of the stream carries in `data`: an event, or the notice of missed ones. */
export const EventStreamDataSchema = z.union([SvcEventSchema, EventsMissedSchema]);
export type EventStreamData = z.infer<typeof EventStreamDataSchema>;
