import {
  countFailedDocumentsPerPair,
  createCcPair,
  deleteCcPair,
  listIndexingStatus,
  OPERATOR_PRINCIPAL,
  startJobQueue,
  updateCcPair,
  type PgBoss,
} from "@svc/core";
import { camelInput, ConnectorIndexingStatusResponseSchema, IndexingStatusRequestSchema, toWire, type AccessType, type DocumentSource } from "@svc/schema";
import { printJson, printTable } from "../output/print-table";
import { terminalText } from "../output/terminal-text";
import type { DatabaseContext } from "../with-database";

// `svc pairs …`: connector-credential pairs, through the same core functions as the REST API, acting
// as the operator (an unscoped admin).

/** `create` prints the new pair's id alone on the last line of stdout. */
export async function createPair({ db }: DatabaseContext, options: { name: string; source: DocumentSource; access: AccessType }): Promise<void> {
  const created = await createCcPair({ db, name: options.name, source: options.source, accessType: options.access });
  console.error(
    terminalText`Created pair ${created.ccPairId} "${options.name}" (${options.source}, ${options.access}; connector ${created.connectorId}, credential ${created.credentialId}).`,
  );
  console.log(created.ccPairId);
}

/** `list`: the same rows as POST /manage/admin/connector/indexing-status; `--json` prints that body. */
export async function listPairs({ db }: DatabaseContext, options: { json?: boolean }): Promise<void> {
  const listing = await listIndexingStatus({
    db,
    principal: OPERATOR_PRINCIPAL,
    request: camelInput(IndexingStatusRequestSchema).parse({ getAllConnectors: true }),
  });
  if (options.json) return printJson(toWire(ConnectorIndexingStatusResponseSchema, listing));
  // Failed documents by the console's one definition (docs/decisions.md, "Failed").
  const pairIds = listing.flatMap((group) => group.indexingStatuses.flatMap((row) => ("ccPairId" in row ? [row.ccPairId] : [])));
  const failed = await countFailedDocumentsPerPair({ db, principal: OPERATOR_PRINCIPAL, ccPairIds: pairIds });
  const rows = listing.flatMap((group) =>
    group.indexingStatuses.map((row) =>
      "ccPairId" in row
        ? [row.ccPairId, row.source, row.ccPairStatus, row.accessType, row.docsIndexed, failed.get(row.ccPairId) ?? 0, row.lastStatus ?? null, row.name]
        : [`federated ${row.id}`, row.source, null, null, null, null, null, row.name],
    ),
  );
  if (rows.length === 0) return console.log("No connector-credential pairs.");
  printTable(["id", "source", "status", "access", "docs", "failed", "last attempt", "name"], rows);
}

export async function setPairPaused({ db, databaseUrl }: DatabaseContext, ccPairId: number, paused: boolean): Promise<void> {
  const pair = await withJobQueue(databaseUrl, (boss) =>
    updateCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId, status: paused ? "PAUSED" : "ACTIVE" }),
  );
  console.log(terminalText`Pair ${pair.id} "${pair.name}" is ${pair.status}.`);
}

export async function deletePair({ db, databaseUrl }: DatabaseContext, ccPairId: number): Promise<void> {
  const pair = await withJobQueue(databaseUrl, (boss) => deleteCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId }));
  console.log(terminalText`Pair ${pair.id} "${pair.name}" is DELETING; the worker removes it and its documents.`);
}

/** A producer-only pg-boss for one command's jobs, stopped before the command returns. */
export async function withJobQueue<T>(databaseUrl: string, work: (boss: PgBoss) => Promise<T>): Promise<T> {
  const boss = await startJobQueue({ databaseUrl, role: "producer", poolSize: 1 });
  try {
    return await work(boss);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}
