import { createCcPair, deleteCcPair, ingestDocument, OPERATOR_PRINCIPAL } from "@svc/core";
import { useTestJobQueue } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import { IngestionDocumentSchema } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { useWorkerProcess } from "./testing/worker-process";

const queue = await useTestJobQueue();
const { db, boss } = queue;
const startWorker = useWorkerProcess(queue.databaseUrl);

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
