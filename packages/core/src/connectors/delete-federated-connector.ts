import type { Db } from "@svc/db";
import type { FederatedConnectorId } from "@svc/schema";
import { AppError } from "../errors/app-error";
import { isStoredId } from "./cc-pair-record";

/** Deletes a federated connector at once: it holds no documents, so there is nothing to clean up. */
export async function deleteFederatedConnector({ db, id }: { db: Db; id: number }): Promise<FederatedConnectorId> {
  const { count } = isStoredId(id) ? await db.federatedConnector.deleteMany({ where: { id } }) : { count: 0 };
  if (count === 0) throw new AppError("NOT_FOUND", `Federated connector ${id} does not exist.`);
  return { id };
}
