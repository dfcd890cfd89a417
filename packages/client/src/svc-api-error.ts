import type { components } from "./generated/openapi";

/** One item of a 422 answer: pydantic's `{type, loc, msg, input, ctx?}`. */
export type ValidationError = components["schemas"]["ValidationError"];

/**
 * A non-2xx answer of svc. `detail` is the body's `detail`: the validation items of a 422, the
 * sentence of any other error. `retryAfter` is the `Retry-After` header in seconds (429 and 503
 * send one).
 */
export class SvcApiError extends Error {
  override readonly name = "SvcApiError";

  constructor(
    readonly status: number,
    readonly detail: string | ValidationError[] | undefined,
    readonly retryAfter: number | undefined,
    /** The whole body as svc sent it (parsed JSON, or text). */
    readonly body: unknown,
  ) {
    super(`svc answered ${status}: ${describeDetail(detail)}`);
  }

  /** The 422's items (empty for any other status). */
  get validationErrors(): ValidationError[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }

  /** The error a response stands for; `body` is its parsed content. */
  static fromResponse(response: Response, body: unknown): SvcApiError {
    const detail = body !== null && typeof body === "object" && "detail" in body ? (body.detail as SvcApiError["detail"]) : undefined;
    return new SvcApiError(response.status, detail, retryAfterSeconds(response.headers.get("retry-after")), body);
  }
}

function describeDetail(detail: SvcApiError["detail"]): string {
  if (detail === undefined) return "no detail";
  if (typeof detail === "string") return detail;
  return detail.map((item) => `${item.loc.join(".")}: ${item.msg}`).join("; ");
}

/** `Retry-After` in seconds: delta-seconds, or an HTTP date (RFC 9110 §10.2.3); undefined otherwise. */
export function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
