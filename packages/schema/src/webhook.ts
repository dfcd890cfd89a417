import { z } from "zod";
import { EventTypeSchema, MAX_EVENT_FILTER_VALUES } from "./events";
import { pyEnum, pyInt, pyList, pyModel, pyString } from "./pydantic-fields";

/** A webhook URL's longest form; longer is a 422. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Pairs one endpoint may filter on; more is a 422. */
export const MAX_WEBHOOK_CC_PAIR_IDS = 1000;
/** Event types one endpoint's filter may list (repeats included, as the stream's `types`); more is a 422. */
export const MAX_WEBHOOK_EVENT_TYPES = MAX_EVENT_FILTER_VALUES;

/** Body of POST /manage/admin/webhook (docs/decisions.md "Webhooks"). */
export const CreateWebhookRequestSchema = pyModel("CreateWebhookRequest", {
  url: pyString({ minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH }),
  cc_pair_ids: pyList(pyInt(), { asSet: true, minLength: 1, maxLength: MAX_WEBHOOK_CC_PAIR_IDS }).nullable().default(null),
  event_types: pyList(pyEnum(EventTypeSchema), { asSet: true, minLength: 1, maxLength: MAX_WEBHOOK_EVENT_TYPES }).nullable().default(null),
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

/** A registered endpoint, as listed (never with its secret). */
export const WebhookEndpointSchema = z.object({
  id: z.int(),
  url: z.string(),
  cc_pair_ids: z.array(z.int()).nullable().meta({ description: "The pairs whose events it receives; null: every pair" }),
  event_types: z.array(EventTypeSchema).nullable().meta({ description: "The event types it receives; null: every type" }),
  created_at: z.iso.datetime({ offset: true }),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointListSchema = z.array(WebhookEndpointSchema);

/** The endpoint as its creation answers it: with its secret, shown this once. */
export const CreatedWebhookEndpointSchema = WebhookEndpointSchema.extend({
  secret: z.string().meta({ description: "`whsec_…`: verifies the `webhook-signature` header (Standard Webhooks). Shown only here" }),
});
export type CreatedWebhookEndpoint = z.infer<typeof CreatedWebhookEndpointSchema>;

export const WebhookDeliveryStatusSchema = z.enum(["pending", "delivered", "dead"]);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatusSchema>;

/** One event sent (or to be sent) to one endpoint. */
export const WebhookDeliverySchema = z.object({
  id: z.int(),
  event_id: z.string().meta({ description: "`evt_…`: the `webhook-id` header and the body's `id`" }),
  event_type: EventTypeSchema,
  document_id: z.string().nullable(),
  status: WebhookDeliveryStatusSchema.meta({ description: "`pending` (queued or waiting for a retry), `delivered` (a 2xx), `dead` (retries ran out)" }),
  attempts: z.int(),
  created_at: z.iso.datetime({ offset: true }),
  last_attempt_at: z.iso.datetime({ offset: true }).nullable(),
  next_attempt_at: z.iso.datetime({ offset: true }).nullable().meta({ description: "When a pending delivery is tried next; null once it ended" }),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const WebhookDeliveryListSchema = z.array(WebhookDeliverySchema);

/** Path of /manage/admin/webhook/{id}. */
export const WebhookIdPathSchema = pyModel("WebhookIdPath", { id: pyInt() });

/** Path of /manage/admin/webhook/{id}/deliveries/{delivery_id}/resend. */
export const WebhookDeliveryPathSchema = pyModel("WebhookDeliveryPath", { id: pyInt(), delivery_id: pyInt() });

/** Query of GET /manage/admin/webhook/{id}/deliveries. */
export const WebhookDeliveryQuerySchema = pyModel("WebhookDeliveryQuery", {
  limit: pyInt({ ge: 1, le: 1000 }).default(50),
});
