// What an operator reads on Indexing health (issue 39, point 5), in a real browser on the production
// build: the live workers (a real worker process, apps/worker's build, counted from its heartbeat and
// gone once it stops), the index's size, search p50/p95 agreeing with GET /api/metrics, the
// dead-letter list with a retry that gets the document indexed, and a rebuild's throughput on the
// chart beside indexing. Indexing fails for real: a trigger rejects chunks holding a word.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runIndexRebuild, startJobQueue, type PgBoss } from "@svc/core";
import { createTestKey, createTestPair, testSearchIndex } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMilliseconds } from "../../components/format";
import { sendIndexingJobsWithoutRetries } from "../dead-letter";
import { parseMetrics, sample } from "../prometheus";
import { installPoisonTrigger, POISON, removePoisonTrigger } from "../trpc/poison";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 90_000;
const workerEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../worker/dist/main.js");

let adminKey = "";
let tickets = 0;
let boss: PgBoss;
let worker: ChildProcess | undefined;
let workerOutput = "";

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Ops admin");
  tickets = await createTestPair(db, { name: "Support tickets", source: "zendesk" });
  await installPoisonTrigger(db);
});
const { rest, waitForText } = world;

beforeAll(async () => {
  boss = await startJobQueue({ databaseUrl: world.database.databaseUrl, role: "producer" });
  // Started on the empty index (it only marks it as this database's), beside the test's own worker.
  worker = spawn(process.execPath, [workerEntry], {
    env: { ...process.env, DATABASE_URL: world.database.databaseUrl, SVC_INDEX_DIR: testSearchIndex().uri, SVC_WORKER_HEARTBEAT_SECONDS: "2" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  worker.stdout?.on("data", (chunk: Buffer) => (workerOutput += chunk.toString()));
  worker.stderr?.on("data", (chunk: Buffer) => (workerOutput += chunk.toString()));
  await waitFor(
    "the worker's heartbeat",
    async () => ((await world.database.db.workerHeartbeat.count()) === 1 ? true : undefined),
    { timeoutMs: 60_000, describe: () => workerOutput.slice(-2_000) },
  );
}, 120_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker!.once("exit", resolve));
    worker.kill("SIGKILL");
    await exited;
  }
  await boss?.stop({ graceful: false, close: true });
});

async function scrape() {
  const response = await rest("GET", "/metrics", adminKey);
  expect(response.status).toBe(200);
  return parseMetrics(await response.text());
}

describe("indexing health for an operator", () => {
  it("signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await signIn(world.page, adminKey);
  });

  it("shows the live workers, the index's size and search p50/p95, as GET /api/metrics has them", { timeout: UI_TIMEOUT }, async () => {
    await world.ingestTickets(adminKey, tickets, [
      ["ticket-1", "The printer on floor 3 is fixed."],
      ["ticket-2", "Password reset for the printer account."],
    ]);
    for (const query of ["printer", "password reset", "floor"]) expect((await rest("POST", "/svc-api/search", adminKey, { query })).status).toBe(200);

    await world.page.goto("/admin/health");
    const page = world.page;
    await waitForText("one live worker", page.getByTestId("live-workers"), (text) => text === "1");
    await waitForText("the serving generation's documents", page.getByTestId("index-size-detail"), (text) => /generation #\d+: 2 documents, [2-9] chunks · folder \d/.test(text));
    expect(await page.getByTestId("index-size").textContent()).toMatch(/^\d+(\.\d)? (B|KiB|MiB)$/);
    await waitForText("the searches counted", page.getByTestId("search-latency-window"), (text) => text === "3 searches in the last 5 min (this web process)");
    const samples = await scrape();
    expect(sample(samples, "svc_workers")).toBe(1);
    expect(sample(samples, "svc_search_window_searches", { component: "web" })).toBe(3);
    const p50 = sample(samples, "svc_search_latency_seconds", { component: "web", quantile: "0.5" })!;
    const p95 = sample(samples, "svc_search_latency_seconds", { component: "web", quantile: "0.95" })!;
    await waitForText("the p50", page.getByTestId("search-p50"), (text) => text === formatMilliseconds(p50 * 1000));
    await waitForText("the p95", page.getByTestId("search-p95"), (text) => text === formatMilliseconds(p95 * 1000));
    await world.browser.screenshot("health-operator");

    // The worker stops (SIGTERM, as svc start stops it): its heartbeat row goes, and the page says so.
    const exited = new Promise((resolve) => worker!.once("exit", resolve));
    worker!.kill("SIGTERM");
    await exited;
    await waitForText("no live worker", page.getByTestId("live-workers"), (text) => text === "0");
    expect(sample(await scrape(), "svc_workers")).toBe(0);
  });

  it("lists a job out of retries with its document and error; Retry sends it back and the document is indexed", { timeout: UI_TIMEOUT }, async () => {
    await world.ingestTickets(adminKey, tickets, [["ticket-bad", `The ${POISON} broke it.`]]);
    await sendIndexingJobsWithoutRetries(boss, world.database.db, ["ticket-bad"]);
    const page = world.page;
    await waitForText("the dead-letter tile", page.getByTestId("dead-letter-tile"), (text) => text === "1");
    const region = page.getByRole("region", { name: "Dead letter" });
    const row = region.getByRole("table", { name: "Dead-letter jobs" }).locator("tbody tr");
    await waitForText("the job's row", row, (text) => text.includes("index-document") && text.includes("Ticket ticket-bad") && text.includes("chunk rejected"));
    expect(await row.count()).toBe(1);
    expect(await row.getByRole("link", { name: `#${tickets}` }).getAttribute("href")).toBe(`/admin/connectors/${tickets}`);
    await world.browser.screenshot("health-dead-letter");

    await removePoisonTrigger(world.database.db);
    await row.getByRole("button", { name: /^Retry job / }).click();
    await waitForText("the list emptied", region, (text) => text.includes("No job is in the dead-letter queue."));
    await waitForText("the dead-letter tile", page.getByTestId("dead-letter-tile"), (text) => text === "0");
    await waitFor("ticket-bad indexed", async () =>
      (await world.database.db.document.findUniqueOrThrow({ where: { id: "ticket-bad" } })).indexingStatus === "indexed" ? true : undefined,
    );
  });

  it("plots a rebuild's documents per minute beside the documents indexed", { timeout: UI_TIMEOUT }, async () => {
    const page = world.page;
    await waitForText("nothing rebuilt yet", page.getByTestId("rebuilt-last-hour"), (text) => text === "0 rebuilt");
    const started = await rest("POST", "/manage/admin/search-index/rebuild", adminKey, {});
    expect(started.status).toBe(202);
    const generationId = ((await started.json()) as { rebuild: { generation_id: number } }).rebuild.generation_id;
    const result = await runIndexRebuild({ index: testSearchIndex(), db: world.database.db, boss, generationId });
    expect(result).toEqual({ swapped: true, docsDone: 3, docsFailed: 0 });
    await waitForText("the rebuilt documents", page.getByTestId("rebuilt-last-hour"), (text) => text === "3 rebuilt");
    expect(await page.getByTestId("indexed-last-hour").textContent()).toBe("3 indexed");
    await page.getByRole("figure", { name: "Documents indexed and rebuilt per minute over the last hour" }).getByText("Rebuilt").waitFor();
    await waitForText("the new generation's size", page.getByTestId("index-size-detail"), (text) => text.startsWith(`generation #${generationId}: 3 documents`));
    await world.browser.screenshot("health-rebuild-throughput");
  });
});
