import type { Db } from "@svc/db";
import type { FederatedConnectorId, FederatedConnectorSource } from "@svc/schema";

/**
 * Creates a federated connector (it searches its source live and indexes nothing). Without a name,
 * the listing shows the source title-cased ("federated_slack" → "Federated Slack").
 */
export async function createFederatedConnector({
  db,
  source,
  name = null,
}: {
  db: Db;
  source: FederatedConnectorSource;
  name?: string | null;
}): Promise<FederatedConnectorId> {
  const row = await db.federatedConnector.create({ data: { source, name }, select: { id: true } });
  return { id: row.id };
}
