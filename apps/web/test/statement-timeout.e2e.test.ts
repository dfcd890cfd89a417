// The web process's statement timeout and the cancel on disconnect, over real HTTP against the
// production server: a query a client shapes (the listing's name filter scans every pair's name)
// answers 503 with Retry-After when it runs too long, and stops on the server when the client leaves;
// so does a search's PostgreSQL step.
import { indexTestDocuments, postTestIngestion, testIngestionBody } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { SearchResponseSchema } from "@svc/schema";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSlowListingPairs, SLOW_LISTING } from "./factories";
import { startProductionServer, useProductionServer, type ProductionServer } from "./production-server";

// The default timeout (30 s) is far longer than the slow listing; a second server on the same
// database has a short one.
const app = useProductionServer();
let shortTimeout: ProductionServer | undefined;

const LISTING = "/api/manage/admin/connector/indexing-status";

beforeAll(async () => {
  await createSlowListingPairs(app.database.db);
  shortTimeout = await startProductionServer({ databaseUrl: app.database.databaseUrl, env: { SVC_STATEMENT_TIMEOUT_MS: "300" } });
}, 120_000);

afterAll(async () => {
  await shortTimeout?.stop();
});

function postListing(base: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}${LISTING}`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify(SLOW_LISTING),
    signal,
  });
}

/** The request statements holding `marker` that the web servers are running on the test database. */
async function runningStatements(marker: string): Promise<number> {
  const [row] = await app.database.db.$queryRaw<[{ count: number }]>`
    SELECT count(*)::int AS count FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'svc-web' AND state = 'active'
      AND query LIKE '%svc-request%' AND strpos(query, ${marker}) > 0`;
  return row.count;
}

/** The listing's statements. */
const runningListings = () => runningStatements("pair_rows");
/** A search's admission statements (PostgreSQL's confirmation of the index's hits). */
const runningAdmissions = () => runningStatements("indexed_version IS NOT NULL");

it("answers a statement that runs past the timeout with 503, Retry-After and a JSON detail", async () => {
  const response = await postListing(shortTimeout!.base);
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("1");
  expect(await response.json()).toEqual({ detail: "The request took too long; narrow it or try again later" });
  expect(await runningListings()).toBe(0);
  // The same server still answers what fits in its timeout.
  const quick = await fetch(`${shortTimeout!.base}${LISTING}`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ source: "file" }),
  });
  expect(quick.status).toBe(200);
});

it("cancels the running statement when the client disconnects", async () => {
  const controller = new AbortController();
  const pending = postListing(app.base, controller.signal).catch((error: unknown) => error);
  await waitFor("the listing to run on the server", async () => ((await runningListings()) > 0 ? true : undefined), { timeoutMs: 20_000 });
  const abortedAt = Date.now();
  controller.abort();
  expect(await pending).toBeInstanceOf(Error);
  // Uncancelled, the statement would run for seconds more (its timeout here is 30 s).
  await waitFor("the listing's statement to stop", async () => ((await runningListings()) === 0 ? true : undefined), { timeoutMs: 2_000 });
  expect(Date.now() - abortedAt).toBeLessThan(2_000);
});

it("cancels a search's running statement when the client disconnects", async () => {
  const ingested = await postTestIngestion(app.base, app.adminKey, testIngestionBody({ id: "cancel-search", text: "quillwort marsh survey" }));
  expect(ingested.status).toBe(200);
  // The server's index is this test file's own: indexing here is what its worker would do.
  await indexTestDocuments(app.database.db, ["cancel-search"]);
  // A transaction holds the document table, so the search's admission waits on PostgreSQL until the
  // client leaves (or the test ends and releases it).
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holding = app.database.db.$transaction(
    async (tx) => {
      await tx.$executeRaw`LOCK TABLE document IN ACCESS EXCLUSIVE MODE`;
      await released;
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
  try {
    const controller = new AbortController();
    const pending = fetch(`${app.base}/api/svc-api/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "quillwort" }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await waitFor("the search's admission to wait on the server", async () => ((await runningAdmissions()) > 0 ? true : undefined), {
      timeoutMs: 20_000,
    });
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await waitFor("the search's statement to stop", async () => ((await runningAdmissions()) === 0 ? true : undefined), { timeoutMs: 2_000 });
  } finally {
    release();
    await holding;
  }
  // The server searches on once the table is free.
  const response = await fetch(`${app.base}/api/svc-api/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "quillwort" }),
  });
  expect(response.status).toBe(200);
  const { results } = SearchResponseSchema.parse(await response.json());
  expect(results.map((result) => result.document_id)).toEqual(["cancel-search"]);
});
