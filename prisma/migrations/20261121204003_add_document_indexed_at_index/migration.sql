-- CreateIndex
CREATE INDEX "document_indexed_at_idx" ON "document"("indexed_at");
