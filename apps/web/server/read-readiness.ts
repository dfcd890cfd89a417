import { checkReadiness } from "@svc/core";
import { isDatabaseUnavailable } from "@svc/db";
import { listMigrationNames } from "@svc/db/migrate";
import type { ServiceStatus } from "@svc/schema";
import { getServices } from "./services";
import { webLogger } from "./observability/web-logger";

let expectedMigrations: string[] | undefined;

/** `GET /api/ready`: the readiness checks, 200 when all are ok, else 503 with the same body. */
export async function readReadiness(): Promise<Response> {
  expectedMigrations ??= listMigrationNames();
  let status: ServiceStatus;
  try {
    const { db } = await getServices();
    status = await checkReadiness({ db, expectedMigrations });
  } catch (error) {
    // The services could not open: the database is away (anything else is a bug, logged without its text).
    if (!isDatabaseUnavailable(error)) webLogger().error({ err: error }, "readiness failed");
    const down = { status: "unavailable" as const, detail: "Database unavailable" };
    status = { status: "unavailable", checks: { database: down, migrations: down, worker: down } };
  }
  return Response.json(status, { status: status.status === "ok" ? 200 : 503 });
}
