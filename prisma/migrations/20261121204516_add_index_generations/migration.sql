-- CreateEnum
CREATE TYPE "IndexGenerationStatus" AS ENUM ('building', 'current', 'retired', 'canceled');

-- CreateTable
CREATE TABLE "index_generation" (
    "id" SERIAL NOT NULL,
    "status" "IndexGenerationStatus" NOT NULL,
    "active_status" "IndexGenerationStatus",
    "text_search_config" TEXT NOT NULL DEFAULT 'english',
    "chunk_token_limit" INTEGER NOT NULL DEFAULT 512,
    "docs_total" INTEGER NOT NULL DEFAULT 0,
    "docs_done" INTEGER NOT NULL DEFAULT 0,
    "docs_failed" INTEGER NOT NULL DEFAULT 0,
    "cursor_document_id" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(6),
    "completed_at" TIMESTAMPTZ(6),
    "retired_at" TIMESTAMPTZ(6),

    CONSTRAINT "index_generation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "index_generation_active_status_key" ON "index_generation"("active_status");

-- Hand-written: active_status is status while the generation is current or building and NULL
-- afterwards, set by this trigger from status alone, so that its unique index allows at most one
-- current and one building generation (Prisma 6 can describe neither a partial unique index nor a
-- CHECK constraint).
CREATE FUNCTION index_generation_active_status() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    NEW.active_status := CASE WHEN NEW.status IN ('building', 'current') THEN NEW.status END;
    RETURN NEW;
END
$$;
CREATE TRIGGER index_generation_active_status BEFORE INSERT OR UPDATE OF status, active_status ON "index_generation"
    FOR EACH ROW EXECUTE FUNCTION index_generation_active_status();

-- Hand-written: generation 1 is what was indexed so far (the chunker's 512 tokens, 'english').
INSERT INTO "index_generation" ("id", "status", "text_search_config", "chunk_token_limit")
VALUES (1, 'current', 'english', 512);
SELECT setval(pg_get_serial_sequence('"index_generation"', 'id'), 1);

-- Hand-written: the default of index_attempt.generation_id (attempts belong to the current
-- generation unless a rebuild says otherwise).
CREATE FUNCTION current_index_generation_id() RETURNS INTEGER
    LANGUAGE sql STABLE
    AS $$ SELECT id FROM index_generation WHERE status = 'current' $$;

-- AlterTable (hand-edited: existing chunks belong to generation 1; the default only fills them)
ALTER TABLE "document_chunk" DROP CONSTRAINT "document_chunk_pkey",
ADD COLUMN     "generation_id" INTEGER NOT NULL DEFAULT 1,
ADD CONSTRAINT "document_chunk_pkey" PRIMARY KEY ("document_id", "generation_id", "chunk_index");
ALTER TABLE "document_chunk" ALTER COLUMN "generation_id" DROP DEFAULT;

-- AlterTable (existing attempts get generation 1 through the default)
ALTER TABLE "index_attempt" ADD COLUMN     "generation_id" INTEGER NOT NULL DEFAULT current_index_generation_id();

-- CreateIndex
CREATE INDEX "index_attempt_generation_id_cc_pair_id_id_idx" ON "index_attempt"("generation_id", "cc_pair_id", "id" DESC);

-- AddForeignKey
ALTER TABLE "document_chunk" ADD CONSTRAINT "document_chunk_generation_id_fkey" FOREIGN KEY ("generation_id") REFERENCES "index_generation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "index_attempt" ADD CONSTRAINT "index_attempt_generation_id_fkey" FOREIGN KEY ("generation_id") REFERENCES "index_generation"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
