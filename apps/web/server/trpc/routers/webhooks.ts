import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints, resendWebhookDelivery } from "@svc/core";
import {
  CONSOLE_WEBHOOK_DELIVERIES_LIMIT,
  ConsoleCreatedWebhookEndpointSchema,
  ConsoleWebhookDeliverySchema,
  ConsoleWebhookEndpointSchema,
  CreateWebhookRequestSchema,
  OkSchema,
  camelInput,
  WebhookDeliveriesInputSchema,
  WebhookDeliveryInputSchema,
  WebhookEndpointIdInputSchema,
} from "@svc/schema";
import { z } from "zod";
import { webEnv } from "../../env";
import { acknowledge, adminProcedure, router } from "../init";

// The REST webhook routes' core functions (docs/decisions.md "Webhooks"): admin keys only, and core's
// one access rule decides which endpoints a scoped admin sees and may register.
export const webhooksRouter = router({
  list: adminProcedure.output(z.array(ConsoleWebhookEndpointSchema)).query(({ ctx }) => listWebhookEndpoints({ db: ctx.db, principal: ctx.principal })),

  /** REST's body checks (camelInput); the answer carries the endpoint's secret, the one time it is shown. */
  create: adminProcedure
    .input(camelInput(CreateWebhookRequestSchema))
    .output(ConsoleCreatedWebhookEndpointSchema)
    .mutation(({ ctx, input }) =>
      createWebhookEndpoint({
        db: ctx.db,
        principal: ctx.principal,
        url: input.url,
        ccPairIds: input.ccPairIds,
        eventTypes: input.eventTypes,
        allowPrivate: webEnv().SVC_WEBHOOK_ALLOW_PRIVATE,
      }),
    ),

  delete: adminProcedure
    .input(WebhookEndpointIdInputSchema)
    .output(OkSchema)
    .mutation(({ ctx, input }) => acknowledge(deleteWebhookEndpoint({ db: ctx.db, principal: ctx.principal, endpointId: input.endpointId }))),

  deliveries: adminProcedure
    .input(WebhookDeliveriesInputSchema)
    .output(z.array(ConsoleWebhookDeliverySchema))
    .query(({ ctx, input }) =>
      listWebhookDeliveries({
        db: ctx.db,
        principal: ctx.principal,
        endpointId: input.endpointId,
        limit: CONSOLE_WEBHOOK_DELIVERIES_LIMIT,
        failuresOnly: input.failuresOnly,
      }),
    ),

  /** Sends the delivery again now, same event id and body (409 while a try of it is running). */
  resend: adminProcedure
    .input(WebhookDeliveryInputSchema)
    .output(ConsoleWebhookDeliverySchema)
    .mutation(({ ctx, input }) =>
      resendWebhookDelivery({ db: ctx.db, principal: ctx.principal, endpointId: input.endpointId, deliveryId: input.deliveryId }),
    ),
});
