-- CreateTable
CREATE TABLE "worker_heartbeat" (
    "worker_id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "seen_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "worker_heartbeat_pkey" PRIMARY KEY ("worker_id")
);
