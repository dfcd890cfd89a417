import { checkReadiness } from "@svc/core";
import { isDatabaseStalled, isDatabaseUnavailable } from "@svc/db";
import { listMigrationNames } from "@svc/db/migrate";
import type { ServiceStatus } from "@svc/schema";
import { getServices } from "./services";
import { webLogger } from "./observability/web-logger";

/**
 * Once the process's services are open, `GET /api/ready` answers within this long whatever the
 * database does (decisions: "Limits and overload"). Opening them is bounded by the connect deadline.
 */
const READINESS_DEADLINE_MS = 800;

let expectedMigrations: string[] | undefined;

/** `GET /api/ready`: the readiness checks, 200 when all are ok, else 503 with the same body. */
export async function readReadiness(): Promise<Response> {
  expectedMigrations ??= listMigrationNames();
  const migrations = expectedMigrations;
  let status: ServiceStatus;
  try {
    const { db } = await getServices();
    // A database that does not answer leaves the checks waiting on their own deadlines; the probe is
    // told before them, and at once while the pool fails fast.
    status = isDatabaseStalled(db) ? databaseDown() : await withinDeadline(checkReadiness({ db, expectedMigrations: migrations }));
  } catch (error) {
    // The services could not open: the database is away (anything else is a bug, logged without its text).
    if (!isDatabaseUnavailable(error)) webLogger().error({ err: error }, "readiness failed");
    status = databaseDown();
  }
  return Response.json(status, { status: status.status === "ok" ? 200 : 503 });
}

/** The checks' answer, or "database unavailable" once READINESS_DEADLINE_MS has passed without one. */
async function withinDeadline(checks: Promise<ServiceStatus>): Promise<ServiceStatus> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ServiceStatus>((resolve) => {
    timer = setTimeout(() => resolve(databaseDown()), READINESS_DEADLINE_MS);
  });
  try {
    return await Promise.race([checks, late]);
  } finally {
    clearTimeout(timer);
  }
}

function databaseDown(): ServiceStatus {
  const down = { status: "unavailable" as const, detail: "Database unavailable" };
  return { status: "unavailable", checks: { database: down, migrations: down, worker: down } };
}
