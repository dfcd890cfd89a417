import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createApiKey } from "@svc/core";
import { waitFor } from "@svc/db/testing";
import { afterAll, describe, expect, it } from "vitest";
import { formatBytes } from "./commands/search-index";
import { runSvc, useRunningSvc } from "./testing/run-svc";

const svc = useRunningSvc();
const workDir = await mkdtemp(path.join(os.tmpdir(), "svc-index-status-"));
afterAll(() => rm(workDir, { recursive: true, force: true }));

/** `svc index status`'s table as records keyed by its (upper-case) headers. */
async function indexStatus(): Promise<Record<string, string>[]> {
  const run = await runSvc(["index", "status"], { env: svc.env });
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trimEnd().split("\n");
  const table = lines.slice(0, lines.indexOf(""));
  const [header = "", ...rows] = table;
  const headers = header.split(/\s{2,}/);
  return rows.map((line) => Object.fromEntries(line.split(/\s{2,}/).map((cell, column) => [headers[column] ?? String(column), cell])));
}

/** The value of `name{generation="…"}` in GET /api/metrics, read with an admin key. */
async function indexMetric(adminKey: string, name: string, generation: string): Promise<string | undefined> {
  const response = await fetch(`${svc.apiUrl}/metrics`, { headers: { authorization: `Bearer ${adminKey}` } });
  expect(response.status).toBe(200);
  const text = await response.text();
  return new RegExp(`^${name}\\{generation="${generation}"\\} (\\S+)$`, "m").exec(text)?.[1];
}

async function chunksInDatabase(generationId: number): Promise<number> {
  const [row] = await svc.database.db.$queryRaw<{ count: number }[]>`SELECT count(*)::int AS count FROM document_chunk WHERE generation_id = ${generationId}`;
  return row?.count ?? -1;
}

describe("svc index status", () => {
  it("shows each generation once, with the documents, chunks and size its index holds, as /api/metrics does", { timeout: 300_000 }, async () => {
    const adminKey = (await createApiKey({ db: svc.database.db, name: "metrics", role: "admin" })).key;
    const pair = await runSvc(["pairs", "create", "--name", "Logbooks", "--source", "file", "--access", "public"], { env: svc.env });
    expect(pair.code, pair.stderr).toBe(0);
    const pairId = pair.stdout.trim().split("\n").at(-1)!;
    const folder = path.join(workDir, "logbooks");
    await mkdir(folder);
    await writeFile(path.join(folder, "short.txt"), "The lamp was lit at dusk.");
    await writeFile(path.join(folder, "also-short.txt"), "Fog from the north, the horn sounded twice.");
    // Some 3,000 words: several chunks of 512 tokens.
    await writeFile(path.join(folder, "long.txt"), Array.from({ length: 600 }, (_, i) => `Entry ${i}: wind, tide and lamp.`).join("\n"));
    const ingest = await runSvc(["ingest", folder, "--pair", pairId, "--wait", "--state", path.join(workDir, "state.json")], { env: svc.env });
    expect(ingest.code, ingest.stderr).toBe(0);

    const [serving, ...others] = await indexStatus();
    expect(others).toEqual([]);
    expect(serving).toMatchObject({ GENERATION: "1", ROLE: "search reads", STATUS: "current", DOCUMENTS: "3" });
    const chunks = Number(serving?.CHUNKS);
    expect(chunks).toBeGreaterThan(3);
    expect(chunks).toBe(await chunksInDatabase(1));
    expect(serving?.SIZE).toMatch(/^\d+\.\d (KiB|MiB)$/);
    expect(await indexMetric(adminKey, "svc_index_documents", "1")).toBe("3");
    expect(await indexMetric(adminKey, "svc_index_chunks", "1")).toBe(String(chunks));
    // The size moves while the worker merges the new rows into the table's indexes: the two agree once it is done.
    await waitFor("svc index status and /api/metrics to show one size", async () => {
      const size = formatBytes(Number(await indexMetric(adminKey, "svc_index_size_bytes", "1")));
      return size === (await indexStatus())[0]?.SIZE ? true : undefined;
    });

    // After a rebuild the new generation serves and is also the last rebuild: one row for it.
    const rebuild = await runSvc(["index", "rebuild", "--chunk-tokens", "256", "--wait"], { env: svc.env });
    expect(rebuild.code, rebuild.stderr).toBe(0);
    const rows = await indexStatus();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ GENERATION: "2", ROLE: "search reads, last rebuild", STATUS: "current", DOCUMENTS: "3", REBUILT: "3/3", FAILED: "0" });
    const rebuiltChunks = Number(rows[0]?.CHUNKS);
    expect(rebuiltChunks).toBeGreaterThan(chunks);
    expect(rebuiltChunks).toBe(await chunksInDatabase(2));
    expect(await indexMetric(adminKey, "svc_index_chunks", "2")).toBe(String(rebuiltChunks));
    expect(await indexMetric(adminKey, "svc_index_chunks", "1")).toBeUndefined();
  });
});
