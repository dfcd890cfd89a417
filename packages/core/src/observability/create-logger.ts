import { pino, type Logger, type LevelWithSilent } from "pino";
import pretty from "pino-pretty";

export type { Logger } from "pino";

/**
 * A process's logger: one JSON object per line on stdout (what log shippers read), or pino-pretty's
 * coloured lines when stdout is a terminal, where a person reads it. Pretty printing runs in this
 * process as a stream rather than as a pino transport: a transport is a worker thread that resolves
 * its target by module name at run time, which bundled apps cannot promise.
 */
export function createLogger({ name, level, pretty: wantPretty = process.stdout.isTTY }: { name: string; level: LevelWithSilent; pretty?: boolean }): Logger {
  const options = { name, level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };
  return wantPretty ? pino(options, pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid" })) : pino(options);
}
