import type { Db } from "@svc/db";
import type { Camel, IngestionDocument, IngestionResult } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import type { PgBoss } from "../jobs/job-queue";
import { documentWriteBatcher } from "./document-write-batcher";
import { prepareDocumentWrites } from "./prepare-document-writes";
import { ingestionResultOf } from "./write-documents";

/**
 * Creates or replaces one document and enqueues its indexing, in one transaction (shared with other
 * concurrent writes, see DocumentWriteBatcher): when this returns, both the document and its job are
 * durable; when it throws, neither is. A write whose condition fails (`if_version`: 409, `if_newer`:
 * `applied: false`) changes nothing (docs/decisions.md "Conditional writes").
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
  const outcome = await documentWriteBatcher(db, boss).write(prepared.write);
  const result = ingestionResultOf(prepared.write, outcome);
  if (result instanceof AppError) throw result;
  return result;
}
