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
