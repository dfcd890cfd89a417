-- AlterTable
ALTER TABLE "index_generation" ADD COLUMN "last_searched_at" TIMESTAMPTZ(6);
