import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCcPair, deleteCcPair, ingestDocument, OPERATOR_PRINCIPAL } from "@svc/core";
import { useTestJobQueue } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { IngestionDocumentSchema } from "@svc/schema";
import { afterAll, describe, expect, it } from "vitest";

const workerEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

const queue = await useTestJobQueue();
const { db, boss } = queue;
let worker: ChildProcess | undefined;
// Runs before the queue's own afterAll (vitest runs them last registered first).
afterAll(() => {
  worker?.kill("SIGKILL");
});

async function ingest(id: string, ccPairId: number): Promise<void> {
  await ingestDocument({
    db,
    boss,
    principal: OPERATOR_PRINCIPAL,
    input: IngestionDocumentSchema.parse({ document: { id, semantic_identifier: id, sections: [{ text: id }], metadata: {} }, cc_pair_id: ccPairId }),
  });
}

describe("the worker process", () => {
  it("runs delete-cc-pair jobs: the pair and the documents only it held disappear", async () => {
    const doomed = (await createCcPair({ db, name: "Doomed", source: "web", accessType: "public" })).ccPairId;
    const kept = (await createCcPair({ db, name: "Kept", source: "web", accessType: "public" })).ccPairId;
    await ingest("worker-only-doomed", doomed);
    await ingest("worker-shared", doomed);
    await ingest("worker-shared", kept);

    worker = spawn(process.execPath, [workerEntry], { env: { ...process.env, DATABASE_URL: queue.databaseUrl }, stdio: "pipe" });
    await waitFor("documents indexed", async () => {
      const pair = await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: kept } });
      return pair.docsIndexed === 1 ? pair : undefined;
    });

    await deleteCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId: doomed });
    await waitFor("the pair removed", async () =>
      (await db.connectorCredentialPair.findUnique({ where: { id: doomed } })) === null ? true : undefined,
    );
    expect((await db.document.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((row) => row.id)).toEqual([
      "worker-shared",
    ]);
    expect((await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: kept } })).docsIndexed).toBe(1);

    const exited = new Promise<number | null>((resolve) => worker?.once("exit", (code) => resolve(code)));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
