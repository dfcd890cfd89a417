import type { AccessType, ConnectorCredentialPairStatus, Db, DbOrTx } from "@svc/db";
import type { Camel, CcPair } from "@svc/schema";
import { accessRuleOf, canEditPair, canViewPair, type PairAccess } from "../auth/access-policy";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import type { PgBoss } from "../jobs/job-queue";
import { DEFAULT_CC_PAIR_ID } from "../model/default-pair";

/** What an operation on one pair is given: where to read, who asks, and which pair. */
export interface PairRequest {
  db: DbOrTx;
  principal: Principal;
  ccPairId: number;
}

/** The same for an operation that writes in its own transaction and queues jobs. */
export interface PairJobRequest extends PairRequest {
  db: Db;
  boss: PgBoss;
}

/** Largest value of a Postgres `integer` (`serial`) column: a bigger id names nothing. */
const MAX_INT4 = 2_147_483_647;

export function isStoredId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= MAX_INT4;
}

/** What GET, PATCH and DELETE /manage/admin/cc-pair/{id} show of a pair. */
export const ccPairSelect = {
  id: true,
  name: true,
  accessType: true,
  status: true,
  connectorId: true,
  credentialId: true,
  docsIndexed: true,
  createdAt: true,
  updatedAt: true,
  connector: { select: { source: true } },
} as const;

/** The pair as the access rule sees it; NOT_FOUND for a pair that does not exist or that the principal may not see. */
export async function requireViewableCcPair(db: DbOrTx, principal: Principal, ccPairId: number): Promise<PairAccess> {
  const pair = isStoredId(ccPairId)
    ? await db.connectorCredentialPair.findUnique({ where: { id: ccPairId }, select: { id: true, accessType: true } })
    : null;
  if (!pair || !canViewPair(accessRuleOf(principal), pair)) throw ccPairNotFound();
  return pair;
}

export async function readCcPair(db: DbOrTx, ccPairId: number): Promise<Camel<CcPair>> {
  const row = await db.connectorCredentialPair.findUniqueOrThrow({ where: { id: ccPairId }, select: ccPairSelect });
  return {
    id: row.id,
    name: row.name,
    source: row.connector.source,
    accessType: row.accessType,
    status: row.status,
    connectorId: row.connectorId,
    credentialId: row.credentialId,
    docsIndexed: row.docsIndexed,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface LockedCcPair {
  id: number;
  accessType: AccessType;
  status: ConnectorCredentialPairStatus;
}

/**
 * Locks the pair's row for the rest of the transaction and checks that the principal may change it:
 * 404 when it does not exist or is invisible to the principal, 403 when it is visible but outside
 * the key's scope, 400 for the built-in default pair.
 */
export async function lockEditableCcPair(tx: DbOrTx, principal: Principal, ccPairId: number): Promise<LockedCcPair> {
  const [pair] = isStoredId(ccPairId)
    ? await tx.$queryRaw<{ id: number; access_type: AccessType; status: ConnectorCredentialPairStatus }[]>`
        SELECT id, access_type::text AS access_type, status::text AS status
        FROM connector_credential_pair WHERE id = ${ccPairId} FOR UPDATE`
    : [];
  const rule = accessRuleOf(principal);
  if (!pair || !canViewPair(rule, { id: pair.id, accessType: pair.access_type })) throw ccPairNotFound();
  if (!canEditPair(rule, pair.id)) {
    throw new AppError("FORBIDDEN", `This API key may not change connector-credential pair ${pair.id}.`);
  }
  if (pair.id === DEFAULT_CC_PAIR_ID) {
    throw new AppError("BAD_REQUEST", "The default connector-credential pair cannot be changed or deleted.");
  }
  return { id: pair.id, accessType: pair.access_type, status: pair.status };
}

/** The original's words for a missing pair (docs/decisions.md "Pairs"); the id is not echoed. */
export function ccPairNotFound(): AppError {
  return new AppError("NOT_FOUND", "Connector-Credential Pair not found");
}
