-- AlterTable
ALTER TABLE "index_attempt" ADD COLUMN     "last_activity_at" TIMESTAMPTZ(6);
