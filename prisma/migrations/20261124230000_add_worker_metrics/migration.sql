-- AlterTable
ALTER TABLE "worker_heartbeat" ADD COLUMN     "metrics" JSONB;
