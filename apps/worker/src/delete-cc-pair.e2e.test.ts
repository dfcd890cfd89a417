import { deleteCcPair, OPERATOR_PRINCIPAL } from "@svc/core";
import { createTestPair, ingestTestDocument, useTestJobQueue } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { describe, expect, it } from "vitest";
import { useWorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db, boss } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

describe("the worker process", () => {
  it("runs delete-cc-pair jobs: the pair and the documents only it held disappear", async () => {
    const doomed = await createTestPair(db, { name: "Doomed" });
    const kept = await createTestPair(db, { name: "Kept" });
    await ingestTestDocument(queue, { id: "worker-only-doomed", ccPairId: doomed });
    await ingestTestDocument(queue, { id: "worker-shared", ccPairId: doomed });
    await ingestTestDocument(queue, { id: "worker-shared", ccPairId: kept });

    const worker = startWorker();
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

    expect(await worker.stop()).toBe(0);
  });
});
