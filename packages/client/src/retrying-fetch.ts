import { retryAfterSeconds } from "./svc-api-error";

/** Retries of answers that say "later" (429, 503). Off unless the client is created with `retry`. */
export interface RetryOptions {
  /** Retries after the first attempt; 3 by default. */
  retries?: number;
  /** The longest wait the client accepts; a longer `Retry-After` is not waited for. 60 s by default. */
  maxDelaySeconds?: number;
}

const RETRIED_STATUSES = new Set([429, 503]);

type Fetch = (request: Request) => Promise<Response>;

/**
 * A fetch that sends a request again when svc answers 429 or 503, after the `Retry-After` it sent
 * (1, 2, 4 … s when it sent none), up to `retries` times; the last answer is returned as it is.
 */
export function retryingFetch(fetch: Fetch, options: RetryOptions | undefined): Fetch {
  if (!options) return fetch;
  const retries = options.retries ?? 3;
  const maxDelaySeconds = options.maxDelaySeconds ?? 60;
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      // A body can be sent once: each attempt but the last sends a copy.
      const response = await fetch(attempt < retries ? request.clone() : request);
      if (attempt >= retries || !RETRIED_STATUSES.has(response.status)) return response;
      const delaySeconds = retryAfterSeconds(response.headers.get("retry-after")) ?? 2 ** attempt;
      if (delaySeconds > maxDelaySeconds) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, delaySeconds * 1000));
    }
  };
}
