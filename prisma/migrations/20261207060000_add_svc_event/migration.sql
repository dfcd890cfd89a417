-- The event outbox (docs/decisions.md "Events"): one row per state change, written in the change's
-- own transaction. tx_id orders the stream by commit safety: rows of transactions older than every
-- running one are final (a reader never skips a row that commits late).
CREATE TABLE "svc_event" (
    "id" BIGSERIAL NOT NULL,
    "tx_id" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "type" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "document_id" TEXT,
    "cc_pair_ids" INTEGER[] NOT NULL DEFAULT ARRAY[]::INTEGER[],
    "version" INTEGER,
    "status" TEXT,
    "error" TEXT,
    "counts" JSONB,

    CONSTRAINT "svc_event_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "svc_event_tx_id_id_idx" ON "svc_event" ("tx_id", "id");
CREATE INDEX "svc_event_occurred_at_idx" ON "svc_event" ("occurred_at");
