import { setTimeout as sleep } from "node:timers/promises";

export interface SvcApi {
  /** The API root, e.g. http://localhost:3000/api (no trailing slash). */
  baseUrl: string;
  apiKey: string;
  /** Tries per request on 429/502/503/504 and network errors. */
  tries: number;
}

export type ApiAnswer<T> = { ok: true; body: T } | { ok: false; status: number | null; reason: string };

/** Statuses that mean "later", not "no": overload (429), an outage or a proxy between (502–504). */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const MAX_BACKOFF_MS = 30_000;

/**
 * One call to svc's REST API, tried again on overload, outage and network errors: after the
 * server's Retry-After when it sent one, else after an exponential backoff with jitter. Other
 * answers are final and come back as a reason a person can read (the 422 items joined).
 */
export async function requestSvcApi<T>(api: SvcApi, method: "GET" | "POST", pathname: string, jsonBody?: string): Promise<ApiAnswer<T>> {
  let last: ApiAnswer<T> = { ok: false, status: null, reason: "not sent" };
  for (let attempt = 1; attempt <= api.tries; attempt++) {
    let waitMs = Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
    try {
      const response = await fetch(`${api.baseUrl}${pathname}`, {
        method,
        headers: { authorization: `Bearer ${api.apiKey}`, ...(jsonBody === undefined ? {} : { "content-type": "application/json" }) },
        body: jsonBody,
      });
      const text = await response.text();
      if (response.ok) return { ok: true, body: JSON.parse(text) as T };
      last = { ok: false, status: response.status, reason: describeError(response.status, text) };
      if (!RETRYABLE_STATUSES.has(response.status)) return last;
      waitMs = retryAfterMs(response.headers.get("retry-after")) ?? waitMs;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      last = { ok: false, status: null, reason: `network error: ${cause?.code ?? cause?.message ?? (error as Error).message}` };
    }
    if (attempt < api.tries) await sleep(waitMs);
  }
  return { ...last, reason: `${last.reason} (after ${api.tries} tries)` };
}

/** Retry-After is seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 10 * MAX_BACKOFF_MS);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.min(date - Date.now(), 10 * MAX_BACKOFF_MS));
}

function describeError(status: number, text: string): string {
  let detail: unknown;
  try {
    detail = (JSON.parse(text) as { detail?: unknown }).detail;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return describeDetail(status, detail);
}

/**
 * An error's status and `detail` as one line: a string detail as it is, a 422's items as
 * `loc: msg` joined with "; " (`dropLoc` leaves out that many loc parts after "body", for a batch
 * item's `documents, i`, so that it reads as the single call's would).
 */
export function describeDetail(status: number, detail: unknown, dropLoc = 0): string {
  if (Array.isArray(detail)) {
    detail = detail
      .map(({ loc = [], msg }: { loc?: unknown[]; msg?: string }) => `${[...loc.slice(0, 1), ...loc.slice(1 + dropLoc)].join(".")}: ${msg ?? "invalid"}`)
      .join("; ");
  }
  return typeof detail === "string" && detail !== "" ? `${status} ${detail}` : String(status);
}
