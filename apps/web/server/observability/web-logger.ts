import { createLogger, type Logger } from "@svc/core";
import { webEnv } from "../env";

const holder = globalThis as typeof globalThis & { svcWebLogger?: Logger };

/** The web process's logger (LOG_LEVEL; JSON lines, pretty on a terminal), one per process. */
export function webLogger(): Logger {
  holder.svcWebLogger ??= createLogger({ name: "web", level: webEnv().LOG_LEVEL });
  return holder.svcWebLogger;
}
