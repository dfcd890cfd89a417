-- CreateTable
CREATE TABLE "index_write_intent" (
    "document_id" TEXT NOT NULL,
    "writes" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "index_write_intent_pkey" PRIMARY KEY ("document_id")
);
