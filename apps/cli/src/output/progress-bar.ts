import cliProgress from "cli-progress";
import { escapeTerminalText } from "./terminal-text";

export interface ProgressBar {
  update(value: number, total: number, status?: string): void;
  stop(): void;
}

/**
 * A progress bar on stderr (stdout stays for the command's result). cli-progress draws nothing when
 * stderr is not a terminal, so logs and pipes get only the final summary.
 */
export function startProgressBar(label: string, total: number): ProgressBar {
  const bar = new cliProgress.SingleBar(
    {
      format: `${escapeTerminalText(label)} [{bar}] {percentage}% | {value}/{total} | {duration_formatted} | {status}`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { status: "" });
  return {
    update(value, newTotal, status = "") {
      bar.setTotal(newTotal);
      bar.update(value, { status: escapeTerminalText(status) });
    },
    stop: () => bar.stop(),
  };
}
