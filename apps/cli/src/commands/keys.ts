import { parseArgs } from "node:util";
import { createApiKey, listApiKeys, revokeApiKey } from "@svc/core";
import type { Db } from "@svc/db";
import { ApiKeyRoleSchema } from "@svc/schema";

const USAGE = `Usage:
  svc keys create --name NAME --role admin|curator|basic|limited [--scope 3,4]
  svc keys list
  svc keys revoke ID`;

/** `svc keys …`: the new key is printed alone on the last line of stdout, for scripts. */
export async function runKeysCommand(db: Db, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case "create": {
      const { values } = parseArgs({
        args: rest,
        options: { name: { type: "string" }, role: { type: "string" }, scope: { type: "string" } },
      });
      if (!values.name || !values.role) throw new UsageError(USAGE);
      const role = ApiKeyRoleSchema.parse(values.role);
      const ccPairIds = values.scope ? values.scope.split(",").map((id) => parsePositiveInt(id.trim())) : [];
      const { key, apiKey } = await createApiKey({ db, name: values.name, role, ccPairIds });
      const scope = apiKey.ccPairIds.length > 0 ? `, scoped to pairs ${apiKey.ccPairIds.join(",")}` : "";
      console.error(`Created API key ${apiKey.id} "${apiKey.name}" (${apiKey.role}${scope}). It is shown only once:`);
      console.log(key);
      return;
    }
    case "list": {
      const keys = await listApiKeys({ db });
      if (keys.length === 0) console.log("No API keys.");
      for (const key of keys) {
        const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : "active";
        const scope = key.ccPairIds.length > 0 ? ` scope=${key.ccPairIds.join(",")}` : "";
        console.log(`${key.id}\t${key.displayPrefix}…\t${key.role}\t${state}\t${key.name}${scope}`);
      }
      return;
    }
    case "revoke": {
      const id = parsePositiveInt(rest[0] ?? "");
      const key = await revokeApiKey({ db, id });
      console.log(`Revoked API key ${key.id} "${key.name}".`);
      return;
    }
    default:
      throw new UsageError(USAGE);
  }
}

export class UsageError extends Error {}

function parsePositiveInt(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`Not a positive integer: "${text}"`);
  return value;
}
