import type { AccessType, Db, DocumentSource } from "@svc/db";
import { insertCcPair } from "../indexing/cc-pair-rows";

/** The ids of a new pair and its connector and credential (the transports map them to the wire's CreatedCcPair). */
export interface NewCcPairIds {
  ccPairId: number;
  connectorId: number;
  credentialId: number;
}

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
  return db.$transaction(async (tx) => {
    const connector = await tx.connector.create({ data: { name, source }, select: { id: true } });
    const credential = await tx.credential.create({ data: { name, source }, select: { id: true } });
    const pair = await insertCcPair(tx, { name, connectorId: connector.id, credentialId: credential.id, accessType });
    return { ccPairId: pair.id, connectorId: connector.id, credentialId: credential.id };
  });
}
