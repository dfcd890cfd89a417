import type { ConnectorCredentialPairStatus } from "@svc/db";
import type { CcPairPermissions } from "@svc/schema";
import { ADMIN_ROLES, type Principal } from "../auth/principal";
import { DEFAULT_CC_PAIR_ID } from "../model/default-pair";

/**
 * What the principal may do to a pair, as the pair routes decide it: they need an admin key whose
 * scope covers the pair (`isEditable`, from the access policy), never touch the default pair, and
 * refuse to rename, pause or resume a pair being deleted (deleting it again only re-queues the job).
 */
export function pairPermissions(
  principal: Principal,
  pair: { id: number; status: ConnectorCredentialPairStatus; isEditable: boolean },
): CcPairPermissions {
  const changeable = ADMIN_ROLES.includes(principal.role) && pair.isEditable && pair.id !== DEFAULT_CC_PAIR_ID;
  const alive = pair.status !== "DELETING";
  return { edit: changeable && alive, pause: changeable && alive, delete: changeable };
}
