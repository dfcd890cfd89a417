/**
 * The levels LOG_LEVEL takes, pino's names (each app's env.ts validates it against this list; core's
 * createLogger takes pino's level type, so a name pino lacks fails to compile there). Here rather than
 * beside the logger so that validating the environment loads no logger.
 */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
