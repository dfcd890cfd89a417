import type { AccessType, Db, DocumentSource } from "@svc/db";
import { insertCcPair, type NewCcPairIds } from "../indexing/cc-pair-rows";

/** Creates a connector, a credential and the pair joining them; the pair starts as SCHEDULED. */
export async function createCcPair({
  db,
  name,
  source,
  accessType,
}: {
  db: Db;
  name: string;
  source: DocumentSource;
  accessType: AccessType;
}): Promise<NewCcPairIds> {
  return db.$transaction((tx) => insertCcPair(tx, { name, source, accessType }));
}
