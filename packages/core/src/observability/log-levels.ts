import type { LevelWithSilent } from "pino";

/**
 * The levels LOG_LEVEL takes (each app's env.ts validates it against this list). Apart from the
 * logger so that validating it loads no logger (the CLI's quick commands log nothing).
 */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const satisfies readonly LevelWithSilent[];
