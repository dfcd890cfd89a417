import { createApiKey, listApiKeys, revokeApiKey } from "@svc/core";
import type { Db } from "@svc/db";
import type { ApiKeyRole } from "@svc/schema";
import { printJson, printTable } from "../output/print-table";
import { terminalText } from "../output/terminal-text";

/** `svc keys create`: the new key is printed alone on the last line of stdout, for scripts. */
export async function createKey(db: Db, options: { name: string; role: ApiKeyRole; scope?: number[] }): Promise<void> {
  const { key, apiKey } = await createApiKey({ db, name: options.name, role: options.role, ccPairIds: options.scope ?? [] });
  const scope = apiKey.scopeCcPairIds.length > 0 ? `, scoped to pairs ${apiKey.scopeCcPairIds.join(",")}` : "";
  console.error(terminalText`Created API key ${apiKey.id} "${apiKey.name}" (${apiKey.role}${scope}). It is shown only once:`);
  console.log(key);
}

/** `svc keys list`: never the keys themselves (only their first characters), which svc does not keep. */
export async function listKeys(db: Db, options: { json?: boolean }): Promise<void> {
  const keys = await listApiKeys({ db });
  if (options.json) {
    printJson(
      keys.map((key) => ({
        id: key.id,
        name: key.name,
        role: key.role,
        prefix: key.displayPrefix,
        cc_pair_ids: key.scopeCcPairIds,
        created_at: key.createdAt.toISOString(),
        last_used_at: key.lastUsedAt?.toISOString() ?? null,
        revoked_at: key.revokedAt?.toISOString() ?? null,
      })),
    );
    return;
  }
  if (keys.length === 0) return console.log("No API keys.");
  printTable(
    ["id", "prefix", "role", "state", "scope", "last used", "name"],
    keys.map((key) => [
      key.id,
      `${key.displayPrefix}…`,
      key.role,
      key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : "active",
      key.scopeCcPairIds.length > 0 ? key.scopeCcPairIds.join(",") : "all",
      key.lastUsedAt?.toISOString() ?? null,
      key.name,
    ]),
  );
}

export async function revokeKey(db: Db, id: number): Promise<void> {
  const key = await revokeApiKey({ db, id });
  console.log(terminalText`Revoked API key ${key.id} "${key.name}".`);
}
