-- Webhooks (docs/decisions.md "Webhooks"): endpoints, one delivery row per event and endpoint, and
-- the fan-out's cursor in the event outbox.
CREATE TABLE "webhook_endpoint" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "cc_pair_ids" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "event_types" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoint_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "webhook_delivery" (
    "id" BIGSERIAL NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "event_id" BIGINT NOT NULL,
    "event_type" TEXT NOT NULL,
    "document_id" TEXT,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leased_until" TIMESTAMPTZ(6),
    "retry_until" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_attempt_at" TIMESTAMPTZ(6),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "webhook_cursor" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "tx_id" xid8 NOT NULL DEFAULT '0'::xid8,
    "event_id" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "webhook_cursor_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_cursor_one_row" CHECK ("id")
);

-- Starts at the outbox's present: events written before webhooks existed are not sent.
INSERT INTO "webhook_cursor" ("tx_id", "event_id")
SELECT COALESCE(MAX("tx_id"), '0'::xid8), COALESCE(MAX("id"), 0) FROM "svc_event";

CREATE INDEX "webhook_delivery_status_next_attempt_at_idx" ON "webhook_delivery"("status", "next_attempt_at");
CREATE INDEX "webhook_delivery_endpoint_id_id_idx" ON "webhook_delivery"("endpoint_id", "id");
CREATE INDEX "webhook_delivery_endpoint_id_document_id_idx" ON "webhook_delivery"("endpoint_id", "document_id");

ALTER TABLE "webhook_delivery" ADD CONSTRAINT "webhook_delivery_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;
