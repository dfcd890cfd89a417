-- CreateTable
CREATE TABLE "rebuild_failure" (
    "generation_id" INTEGER NOT NULL,
    "document_id" TEXT NOT NULL,
    "error" TEXT NOT NULL,

    CONSTRAINT "rebuild_failure_pkey" PRIMARY KEY ("generation_id","document_id")
);

-- CreateIndex
CREATE INDEX "rebuild_failure_document_id_idx" ON "rebuild_failure"("document_id");

-- AddForeignKey
ALTER TABLE "rebuild_failure" ADD CONSTRAINT "rebuild_failure_generation_id_fkey" FOREIGN KEY ("generation_id") REFERENCES "index_generation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rebuild_failure" ADD CONSTRAINT "rebuild_failure_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "document"("id") ON DELETE CASCADE ON UPDATE CASCADE;
