-- An endpoint's pending deliveries in the order they are due (docs/decisions.md "Webhooks"): the
-- claim takes each endpoint's oldest due ones, and the fan-out counts them up to the queue bound,
-- without reading the delivered and dead ones kept for the console.
CREATE INDEX "webhook_delivery_pending_idx" ON "webhook_delivery" ("endpoint_id", "next_attempt_at", "id") WHERE "status" = 'pending';
