import { createLogger } from "@svc/core";
import { isDatabaseUnavailable } from "@svc/db";

/**
 * What a process of this app does when it fails to start: logs it under `name` and exits 1. An
 * unreachable database is an operating condition, not a bug: one line (a supervisor restarts the process).
 */
export function exitOnStartFailure(name: string): (error: unknown) => never {
  return (error) => {
    const logger = createLogger({ name, level: "error" });
    if (isDatabaseUnavailable(error)) logger.error({ error: (error as Error).message }, "failed to start, database unavailable");
    else logger.error({ err: error }, "failed to start");
    logger.flush();
    process.exit(1);
  };
}
