import { checkReadiness } from "@svc/core";
import { isDatabaseStalled, isDatabaseUnavailable } from "@svc/db";
import { listMigrationNames } from "@svc/db/migrate";
import type { ServiceStatus } from "@svc/schema";
import { getServices } from "./services";
import { webLogger } from "./observability/web-logger";

/** `GET /api/ready` answers within this long whatever the database does (decisions: "Limits and overload"). */
const READINESS_DEADLINE_MS = 800;

let expectedMigrations: string[] | undefined;

/** `GET /api/ready`: the readiness checks, 200 when all are ok, else 503 with the same body. */
export async function readReadiness(): Promise<Response> {
  expectedMigrations ??= listMigrationNames();
  const migrations = expectedMigrations;
  let timer: NodeJS.Timeout | undefined;
  // A database that does not answer leaves the checks waiting on their own (bounded) deadlines; the
  // probe is told before them.
  const late = new Promise<ServiceStatus>((resolve) => {
    timer = setTimeout(() => resolve(databaseDown()), READINESS_DEADLINE_MS);
  });
  const checked = (async (): Promise<ServiceStatus> => {
    try {
      const { db } = await getServices();
      if (isDatabaseStalled(db)) return databaseDown();
      return await checkReadiness({ db, expectedMigrations: migrations });
    } catch (error) {
      // The services could not open: the database is away (anything else is a bug, logged without its text).
      if (!isDatabaseUnavailable(error)) webLogger().error({ err: error }, "readiness failed");
      return databaseDown();
    }
  })();
  const status = await Promise.race([checked, late]).finally(() => clearTimeout(timer));
  return Response.json(status, { status: status.status === "ok" ? 200 : 503 });
}

function databaseDown(): ServiceStatus {
  const down = { status: "unavailable" as const, detail: "Database unavailable" };
  return { status: "unavailable", checks: { database: down, migrations: down, worker: down } };
}
