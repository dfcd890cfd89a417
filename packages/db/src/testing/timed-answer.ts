/** A request's answer, as a test reads it, and how long it took. */
export interface TimedAnswer {
  what: string;
  status: number;
  retryAfter: string | null;
  /** The body parsed as JSON, or its text when it is not JSON (kept for the failure message). */
  body: unknown;
  ms: number;
}

/** Sends `request` and reads its whole answer, timing both (the database-stall tests bound them). */
export async function timedAnswer(what: string, request: () => Promise<Response>): Promise<TimedAnswer> {
  const started = performance.now();
  const response = await request();
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { what, status: response.status, retryAfter: response.headers.get("retry-after"), body, ms: performance.now() - started };
}
