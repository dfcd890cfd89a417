import type { ApiKeyRole } from "@svc/db";
import { AppError } from "../errors/app-error";

/** Who is calling: resolved from a bearer key (REST) or a session (admin UI). */
export interface Principal {
  apiKeyId: number;
  name: string;
  role: ApiKeyRole;
  /** Pairs the key is limited to; null when it is not scoped. */
  scopeCcPairIds: number[] | null;
}

/** The roles that may use the ingestion and connector-status operations. */
export const CONNECTOR_ROLES: readonly ApiKeyRole[] = ["admin", "curator"];
export const ADMIN_ROLES: readonly ApiKeyRole[] = ["admin"];

export function requireRole(principal: Principal, roles: readonly ApiKeyRole[]): void {
  if (!roles.includes(principal.role)) {
    throw new AppError("FORBIDDEN", `This operation needs one of the roles: ${roles.join(", ")}.`);
  }
}

/** Whether the principal may write into (and edit) the pair. */
export function canEditPair(principal: Principal, ccPairId: number): boolean {
  return principal.scopeCcPairIds === null || principal.scopeCcPairIds.includes(ccPairId);
}
