import type { Db } from "@svc/db";
import type { CamelOf, CreatedWebhookEndpointSchema, EventType, WebhookEndpointSchema } from "@svc/schema";
import { accessRuleOf, canEditPair, type AccessRule } from "../auth/access-policy";
import { ADMIN_ROLES, requireRole, type Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { CC_PAIR_NOT_FOUND, MAX_PAIR_ID } from "../model/default-pair";
import { createWebhookSecret } from "./sign-webhook";
import { checkWebhookAddress, parseWebhookUrl } from "./webhook-address";

// The one writer of `webhook_endpoint` (docs/decisions.md "Webhooks"). Who sees an endpoint follows
// the one access rule: an endpoint of every pair (no pair filter) belongs to no pair, so only an admin
// key without scope sees it; one filtered on pairs is seen by a key that may change each of them.

type WebhookEndpoint = CamelOf<typeof WebhookEndpointSchema>;
type CreatedWebhookEndpoint = CamelOf<typeof CreatedWebhookEndpointSchema>;

const endpointSelect = { id: true, url: true, ccPairIds: true, eventTypes: true, createdAt: true } as const;

function toEndpoint(row: { id: number; url: string; ccPairIds: number[]; eventTypes: string[]; createdAt: Date }): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    ccPairIds: row.ccPairIds.length === 0 ? null : row.ccPairIds,
    eventTypes: row.eventTypes.length === 0 ? null : (row.eventTypes as EventType[]),
    createdAt: row.createdAt.toISOString(),
  };
}

/** Whether the rule covers the endpoint: every pair it filters on is the caller's (and it filters on some, unless the caller sees all). */
function canSeeEndpoint(rule: AccessRule, ccPairIds: readonly number[]): boolean {
  return rule.allPairs || (ccPairIds.length > 0 && ccPairIds.every((id) => canEditPair(rule, id)));
}

/**
 * Registers an endpoint and answers it with its secret, the only time the secret is shown. The URL
 * must be http(s) without credentials, and its host public unless `allowPrivate` (400 otherwise). A
 * scoped admin key registers only for its own pairs (403 for another), and for all of them when it
 * names none; an unknown pair is a 400, as ingestion answers it.
 */
export async function createWebhookEndpoint({
  db,
  principal,
  url,
  ccPairIds,
  eventTypes,
  allowPrivate,
}: {
  db: Db;
  principal: Principal;
  url: string;
  ccPairIds: number[] | null;
  eventTypes: EventType[] | null;
  allowPrivate: boolean;
}): Promise<CreatedWebhookEndpoint> {
  requireRole(principal, ADMIN_ROLES);
  const rule = accessRuleOf(principal);
  const pairIds = ccPairIds ?? (rule.allPairs ? [] : [...rule.pairIds]);
  if (!rule.allPairs && pairIds.some((id) => !canEditPair(rule, id))) {
    throw new AppError("FORBIDDEN", "This key may register webhooks only for the connector-credential pairs of its scope.");
  }
  if (pairIds.length > 0) {
    const found = pairIds.every((id) => id <= MAX_PAIR_ID) ? await db.connectorCredentialPair.count({ where: { id: { in: pairIds } } }) : -1;
    if (found !== pairIds.length) throw new AppError("BAD_REQUEST", CC_PAIR_NOT_FOUND);
  }
  const parsed = parseWebhookUrl(url);
  await checkWebhookAddress(parsed, allowPrivate);
  const row = await db.webhookEndpoint.create({
    data: { url: parsed.href, secret: createWebhookSecret(), ccPairIds: [...pairIds].sort((a, b) => a - b), eventTypes: eventTypes ?? [] },
    select: { ...endpointSelect, secret: true },
  });
  return { ...toEndpoint(row), secret: row.secret };
}

/** The endpoints the caller may see, oldest first, without their secrets. */
export async function listWebhookEndpoints({ db, principal }: { db: Db; principal: Principal }): Promise<WebhookEndpoint[]> {
  requireRole(principal, ADMIN_ROLES);
  const rule = accessRuleOf(principal);
  const rows = await db.webhookEndpoint.findMany({
    where: rule.allPairs ? {} : { ccPairIds: { isEmpty: false } },
    select: endpointSelect,
    orderBy: { id: "asc" },
  });
  return rows.filter((row) => canSeeEndpoint(rule, row.ccPairIds)).map(toEndpoint);
}

/** An endpoint the caller may see; NOT_FOUND otherwise, as for an unknown id. */
export async function requireVisibleWebhookEndpoint(db: Db, principal: Principal, endpointId: number): Promise<WebhookEndpoint> {
  requireRole(principal, ADMIN_ROLES);
  const row = endpointId >= 1 && endpointId <= MAX_PAIR_ID ? await db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: endpointSelect }) : null;
  if (!row || !canSeeEndpoint(accessRuleOf(principal), row.ccPairIds)) throw new AppError("NOT_FOUND", "No such webhook endpoint");
  return toEndpoint(row);
}

/** Removes an endpoint with its deliveries (those pending are never sent); answers it as it was. */
export async function deleteWebhookEndpoint({ db, principal, endpointId }: { db: Db; principal: Principal; endpointId: number }): Promise<WebhookEndpoint> {
  const endpoint = await requireVisibleWebhookEndpoint(db, principal, endpointId);
  await db.webhookEndpoint.deleteMany({ where: { id: endpointId } });
  return endpoint;
}
