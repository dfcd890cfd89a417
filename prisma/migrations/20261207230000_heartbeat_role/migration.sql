-- Which kind of process stamps a heartbeat row: a worker (counted as one by readiness, the health page
-- and the attempt sweep) or the index maintenance process (whose metrics GET /api/metrics serves too).
ALTER TABLE "worker_heartbeat" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'worker';
