import type { ApiKeyRole } from "@svc/db";
import { AppError } from "../errors/app-error";
import { isUnscopedAdmin } from "./access-policy";

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

/** For operations on the whole service (an index rebuild touches every pair): an admin key without scope. */
export function requireUnscopedAdmin(principal: Principal): void {
  requireRole(principal, ADMIN_ROLES);
  if (!isUnscopedAdmin(principal)) {
    throw new AppError("FORBIDDEN", "This operation affects every connector-credential pair: it needs an admin key without scope.");
  }
}
