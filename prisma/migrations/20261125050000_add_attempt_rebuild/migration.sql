-- AlterTable
ALTER TABLE "index_attempt" ADD COLUMN     "rebuild" BOOLEAN NOT NULL DEFAULT false;

-- Hand-written: marks the attempts rebuilds made before this column. A rebuild's attempts belong to the
-- generation it built and were opened before that generation was swapped in (or canceled): indexing
-- jobs open theirs in the current generation only. Generation 1 came with the migration that added
-- generations, not from a rebuild.
UPDATE "index_attempt" ia SET "rebuild" = true
FROM "index_generation" g
WHERE g.id = ia.generation_id AND g.id <> 1
  AND (g.completed_at IS NULL OR ia.created_at < g.completed_at);
