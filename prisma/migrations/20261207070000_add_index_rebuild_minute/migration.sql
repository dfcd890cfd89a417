-- CreateTable
CREATE TABLE "index_rebuild_minute" (
    "generation_id" INTEGER NOT NULL,
    "minute" TIMESTAMPTZ(6) NOT NULL,
    "docs_done" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "index_rebuild_minute_pkey" PRIMARY KEY ("generation_id","minute")
);

-- CreateIndex
CREATE INDEX "index_rebuild_minute_minute_idx" ON "index_rebuild_minute"("minute");

-- AddForeignKey
ALTER TABLE "index_rebuild_minute" ADD CONSTRAINT "index_rebuild_minute_generation_id_fkey" FOREIGN KEY ("generation_id") REFERENCES "index_generation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
