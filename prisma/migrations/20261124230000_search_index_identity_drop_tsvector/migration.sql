-- Search moved to the LanceDB index (@svc/search-index); nothing reads the chunks' tsvector any more.
-- DropIndex
DROP INDEX "document_chunk_search_vector_idx";

-- AlterTable
ALTER TABLE "document_chunk" DROP COLUMN "search_vector";

-- CreateTable
CREATE TABLE "search_index_identity" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "database_id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_index_identity_pkey" PRIMARY KEY ("id")
);

-- Hand-written: the one row, and a check that keeps it the only one. Every database gets an id of
-- its own here; the search index stores the same id in its marker, so an index directory belonging
-- to another database is recognised at worker start.
ALTER TABLE "search_index_identity" ADD CONSTRAINT "search_index_identity_single_row" CHECK ("id");
INSERT INTO "search_index_identity" DEFAULT VALUES;
