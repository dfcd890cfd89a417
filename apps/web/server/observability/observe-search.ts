import { toAppError } from "@svc/core";
import { webMetrics } from "./web-metrics";

/**
 * Runs a search and notes its duration in the process's search-latency window: one that answered,
 * or ran into the search timeout (its duration is latency a caller saw). One refused before it ran
 * (access, bad input) or failed otherwise is not a search's latency and is left out.
 */
export async function observeSearch<T>(search: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const observe = () => webMetrics().searchLatency.observe((performance.now() - started) / 1000);
  try {
    const answer = await search();
    observe();
    return answer;
  } catch (error) {
    if (toAppError(error)?.code === "SEARCH_TIMEOUT") observe();
    throw error;
  }
}
