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

/** The operator acting directly on the service (the command line): an unscoped admin. */
export const OPERATOR_PRINCIPAL: Principal = { apiKeyId: 0, name: "operator", role: "admin", scopeCcPairIds: null };

/** Whether the principal may write into (and edit) the pair. */
export function canEditPair(principal: Principal, ccPairId: number): boolean {
  return principal.scopeCcPairIds === null || principal.scopeCcPairIds.includes(ccPairId);
}

/**
 * Whether the principal may see the pair at all: a scoped key sees its own pairs and every public
 * one (read-only); an unscoped key sees everything. The status listing applies the same rule in SQL.
 */
export function canViewPair(principal: Principal, pair: { id: number; accessType: string }): boolean {
  return canEditPair(principal, pair.id) || pair.accessType === "public";
}

/** For operations on the whole service (an index rebuild touches every pair): an admin key without scope. */
export function requireUnscopedAdmin(principal: Principal): void {
  requireRole(principal, ADMIN_ROLES);
  if (principal.scopeCcPairIds !== null) {
    throw new AppError("FORBIDDEN", "This operation affects every connector-credential pair: it needs an admin key without scope.");
  }
}
