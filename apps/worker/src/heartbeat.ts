import { recordWorkerHeartbeat, removeWorkerHeartbeat, type HeartbeatRole, type Logger, type WorkerIdentity } from "@svc/core";
import type { Db } from "@svc/db";
import type { WorkerMetrics } from "./worker-metrics";

/** How soon metrics changed by a job reach the heartbeat row (and so GET /api/metrics). */
const METRICS_PUBLISH_DELAY_MS = 1_000;

/**
 * Stamps this process's heartbeat row (a worker's, or the maintenance process's: `role`), with its metrics, now and then every `seconds` (readiness wants
 * one within 60 s), on a timer of its own, off the job path; `publishSoon` brings the next stamp
 * forward to within a second, so a scrape sees a job's metrics about a second after it ends. A failed
 * stamp (database away) is retried on the next tick.
 */
export async function startHeartbeat({
  db,
  self,
  role = "worker",
  seconds,
  metrics,
  logger,
}: {
  db: Db;
  self: WorkerIdentity;
  role?: HeartbeatRole;
  seconds: number;
  metrics: WorkerMetrics;
  logger: Logger;
}): Promise<{
  publishSoon: () => void;
  stop: () => Promise<void>;
}> {
  const beat = { db, ...self, startedAt: new Date() };
  let warned = false;
  let soon: NodeJS.Timeout | undefined;
  const stamp = async () => {
    try {
      await recordWorkerHeartbeat({ ...beat, role, metrics: await metrics.registry.getMetricsAsJSON() });
      warned = false;
    } catch (error) {
      if (!warned) logger.error({ error: (error as Error).message }, "heartbeat not recorded");
      warned = true;
    }
  };
  // The first stamp before any job: other workers starting meanwhile see this one alive.
  await stamp();
  const timer = setInterval(() => void stamp(), seconds * 1000);
  timer.unref();
  return {
    publishSoon: () => {
      soon ??= setTimeout(() => {
        soon = undefined;
        void stamp();
      }, METRICS_PUBLISH_DELAY_MS).unref();
    },
    stop: async () => {
      clearInterval(timer);
      clearTimeout(soon);
      await removeWorkerHeartbeat({ db, workerId: beat.workerId }).catch(() => undefined);
    },
  };
}
