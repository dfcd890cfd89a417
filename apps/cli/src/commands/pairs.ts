import { parseArgs } from "node:util";
import {
  createCcPair,
  deleteCcPair,
  listIndexingStatus,
  OPERATOR_PRINCIPAL,
  startJobQueue,
  updateCcPair,
} from "@svc/core";
import type { Db } from "@svc/db";
import { AccessTypeSchema, DocumentSourceSchema, IndexingStatusRequestSchema } from "@svc/schema";
import { UsageError } from "./keys";

const USAGE = `Usage:
  svc pairs create --name NAME --source SOURCE --access public|private|sync
  svc pairs list
  svc pairs pause ID
  svc pairs resume ID
  svc pairs delete ID`;

/**
 * `svc pairs …`: connector-credential pairs, through the same core functions as the REST API, acting
 * as the operator (an unscoped admin). `create` prints the new pair's id alone on the last line.
 */
export async function runPairsCommand({ db, databaseUrl }: { db: Db; databaseUrl: string }, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case "create": {
      const { values } = parseArgs({
        args: rest,
        options: { name: { type: "string" }, source: { type: "string" }, access: { type: "string" } },
      });
      if (!values.name || !values.source || !values.access) throw new UsageError(USAGE);
      const source = DocumentSourceSchema.safeParse(values.source);
      if (!source.success) throw new UsageError(`Unknown source "${values.source}". One of: ${DocumentSourceSchema.options.join(", ")}`);
      const accessType = AccessTypeSchema.safeParse(values.access);
      if (!accessType.success) throw new UsageError(`Unknown access type "${values.access}". One of: public, private, sync`);
      const created = await createCcPair({ db, name: values.name, source: source.data, accessType: accessType.data });
      console.error(
        `Created pair ${created.ccPairId} "${values.name}" (${source.data}, ${accessType.data}; connector ${created.connectorId}, credential ${created.credentialId}).`,
      );
      console.log(created.ccPairId);
      return;
    }
    case "list": {
      const listing = await listIndexingStatus({
        db,
        principal: OPERATOR_PRINCIPAL,
        request: IndexingStatusRequestSchema.parse({ get_all_connectors: true }),
      });
      if (listing.length === 0) console.log("No connector-credential pairs.");
      for (const group of listing) {
        for (const row of group.indexing_statuses) {
          if ("cc_pair_id" in row) {
            const lastStatus = row.last_status ?? "-";
            console.log(
              `${row.cc_pair_id}\t${row.source}\t${row.cc_pair_status}\t${row.access_type}\t${row.docs_indexed} docs\tlast ${lastStatus}\t${row.name}`,
            );
          } else {
            console.log(`federated ${row.id}\t${group.source}\t${row.source}\t\t\t\t${row.name}`);
          }
        }
      }
      return;
    }
    case "pause":
    case "resume": {
      const boss = await startJobQueue({ databaseUrl, role: "producer", poolSize: 1 });
      try {
        const pair = await updateCcPair({
          db,
          boss,
          principal: OPERATOR_PRINCIPAL,
          ccPairId: parsePairId(rest[0]),
          status: action === "pause" ? "PAUSED" : "ACTIVE",
        });
        console.log(`Pair ${pair.id} "${pair.name}" is ${pair.status}.`);
      } finally {
        await boss.stop({ graceful: false, close: true });
      }
      return;
    }
    case "delete": {
      const ccPairId = parsePairId(rest[0]);
      const boss = await startJobQueue({ databaseUrl, role: "producer", poolSize: 1 });
      try {
        const pair = await deleteCcPair({ db, boss, principal: OPERATOR_PRINCIPAL, ccPairId });
        console.log(`Pair ${pair.id} "${pair.name}" is DELETING; the worker removes it and its documents.`);
      } finally {
        await boss.stop({ graceful: false, close: true });
      }
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
}

function parsePairId(text: string | undefined): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`Not a pair id: "${text ?? ""}"\n${USAGE}`);
  return value;
}
