import { waitFor } from "@svc/db/testing";
import { afterAll, describe, expect, it } from "vitest";
import { useTestJobQueue } from "../testing/create-test-job-queue";
import { purgeIndexGenerationJob } from "./catalog";
import { sendJob, startJobQueue, workJobs } from "./job-queue";

const queue = await useTestJobQueue();
const worker = await startJobQueue({ databaseUrl: queue.databaseUrl, role: "worker" });
afterAll(() => worker.stop({ graceful: false, close: true }));

/** Keeps the event loop busy, as a long synchronous step of a batch does: every timer due meanwhile fires together after it. */
function stallEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy on purpose
  }
}

describe("workJobs with pollers in turn", () => {
  it("fetches a new job within a turn of the rotation, long before any poller's own timer, even after a stall", async () => {
    const handled = new Map<number, number>();
    // 4 pollers of a 5 s interval: one is woken every 1.25 s; each one's own timer fires every 20 s.
    await workJobs(worker, purgeIndexGenerationJob, { batchSize: 10, localConcurrency: 4, pollingIntervalSeconds: 5, pollInTurn: true }, (jobs) => {
      for (const job of jobs) handled.set(job.payload.generationId, Date.now());
      return Promise.resolve();
    });
    stallEventLoop(1_000);
    for (const generationId of [1, 2, 3]) {
      const sent = Date.now();
      await sendJob(queue.boss, purgeIndexGenerationJob, { generationId });
      // A turn is 1.25 s; a poller left to its own timer would not fetch before 20 s had passed.
      const at = await waitFor(`job ${generationId} to be handled`, () => handled.get(generationId), { timeoutMs: 5_000 });
      expect(at - sent).toBeLessThan(5_000);
    }
  });
});
