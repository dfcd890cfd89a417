import type { Db } from "@svc/db";
import type { FederatedConnectorId, FederatedConnectorSource } from "@svc/schema";
import { requireUnscopedAdmin, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { isStoredId } from "./cc-pair-record";

// The one writer of `federated_connector`: a federated connector searches its source live and
// indexes nothing, so it is created and deleted and nothing else. It belongs to no pair, so no key
// scope covers it: only an admin without scope changes it (docs/decisions.md "Scoped keys").

/**
 * Creates a federated connector. Without a name, the listing shows the source title-cased
 * ("federated_slack" → "Federated Slack").
 */
export async function createFederatedConnector({
  db,
  principal,
  source,
  name = null,
}: {
  db: Db;
  principal: Principal;
  source: FederatedConnectorSource;
  name?: string | null;
}): Promise<FederatedConnectorId> {
  requireUnscopedAdmin(principal);
  const row = await db.federatedConnector.create({ data: { source, name }, select: { id: true } });
  return { id: row.id };
}

/** Deletes a federated connector at once: it holds no documents, so there is nothing to clean up. */
export async function deleteFederatedConnector({
  db,
  principal,
  id,
}: {
  db: Db;
  principal: Principal;
  id: number;
}): Promise<FederatedConnectorId> {
  requireUnscopedAdmin(principal);
  const { count } = isStoredId(id) ? await db.federatedConnector.deleteMany({ where: { id } }) : { count: 0 };
  if (count === 0) throw new AppError("NOT_FOUND", `Federated connector ${id} does not exist.`);
  return { id };
}
