import type { Db } from "@svc/db";
import type { Camel, IngestionDocument, IngestionResult } from "@svc/schema";
import type { Principal } from "../auth/principal";
import type { PgBoss } from "../jobs/job-queue";
import { documentWriteBatcher } from "./document-write-batcher";
import { prepareDocumentWrites } from "./prepare-document-writes";

/**
 * Creates or replaces one document and enqueues its indexing, in one transaction (shared with other
 * concurrent writes, see DocumentWriteBatcher): when this returns, both the document and its job are
 * durable; when it throws, neither is.
 */
export async function ingestDocument({
  db,
  boss,
  principal,
  input,
}: {
  db: Db;
  boss: PgBoss;
  principal: Principal;
  input: IngestionDocument;
}): Promise<Camel<IngestionResult>> {
  const [prepared] = await prepareDocumentWrites({ db, principal, inputs: [{ input, bodyLoc: ["body"] }] });
  if (!prepared) throw new Error("prepareDocumentWrites answered no result");
  if ("error" in prepared) throw prepared.error;
  const written = await documentWriteBatcher(db, boss).write(prepared.write);
  return { documentId: written.id, alreadyExisted: !written.inserted };
}
