import { AppError, authenticateApiKey, recentlyResolvedApiKey, requireRole, toAppError } from "@svc/core";
import { REST_CONTRACT, successStatus, type RestEndpoint, type RestOperationId } from "@svc/schema";
import { createHash, timingSafeEqual } from "node:crypto";
import { clientAddressOf, credentialRetryAfter, noteCredentialFailure, noteCredentialRefusal } from "../credential-throttle";
import { webEnv } from "../env";
import { getServices } from "../services";
import { errorResponse, HttpError } from "./error-response";
import { readJsonBody, readPathParams, readQueryParams } from "./read-request";
import { REST_HANDLERS, type RestHandlerInput } from "./rest-handlers";

/**
 * One call of a contract entry: bearer authentication and role check first (before the body is
 * read), then the path, query and body parsed with the entry's schemas, the handler, and one mapping
 * from errors to responses. A handler's value is sent as JSON with the entry's 2xx status.
 */
export async function runRestOperation(
  operationId: RestOperationId,
  pathParams: Record<string, string>,
  request: Request,
): Promise<Response> {
  const entry: RestEndpoint = REST_CONTRACT[operationId];
  // Each handler is typed by its own entry; here the entry is only known at run time.
  const handler = REST_HANDLERS[operationId] as unknown as (input: RestHandlerInput<RestEndpoint>) => unknown;
  let bodyRead = entry.body?.type !== "json";
  const deadline =
    entry.deadline === "search"
      ? startDeadline(webEnv().SVC_SEARCH_TIMEOUT_MS, request.signal, () =>
          // Still waiting for the body: the client is slow, not the search.
          bodyRead ? new AppError("SEARCH_TIMEOUT", "Search took too long; narrow the query") : new HttpError(408, "Request body timed out", { connection: "close" }),
        )
      : undefined;
  try {
    const run = async () => {
      const caller = entry.auth === "public" ? {} : await authenticate(request, entry);
      const path = entry.pathParams ? readPathParams(pathParams, entry.pathParams.schema) : undefined;
      const query = entry.query ? readQueryParams(request, entry.query.schema) : undefined;
      const body =
        entry.body?.type === "json"
          ? await readJsonBody(request, entry.body, {
              limitBytes: webEnv().SVC_MAX_BODY_BYTES,
              validationMs: webEnv().SVC_BODY_VALIDATION_MS,
              emptyBody: entry.body.required ? undefined : {},
            })
          : undefined;
      bodyRead = true;
      const signal = deadline?.signal ?? request.signal;
      return handler({ request, signal, deadlineAt: deadline?.at, path, query, body, ...caller } as RestHandlerInput<RestEndpoint>);
    };
    const result = await (deadline ? deadline.race(run()) : run());
    return result instanceof Response ? result : Response.json(result, { status: successStatus(entry) });
  } catch (error) {
    return errorResponse(error);
  } finally {
    deadline?.clear();
  }
}

/**
 * A deadline over a whole request (decisions.md "Limits and overload"): when it passes, the request
 * is answered at once with `expiredError()`, whatever step it is at (reading the body, checking the
 * key, searching), and its signal aborts so the step stops (a running statement is cancelled).
 */
function startDeadline(timeoutMs: number, clientSignal: AbortSignal, expiredError: () => Error) {
  const expired = new AbortController();
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const timer = setTimeout(() => {
    fail(expiredError());
    expired.abort();
  }, timeoutMs);
  return {
    at: Date.now() + timeoutMs,
    signal: AbortSignal.any([clientSignal, expired.signal]),
    race: <T>(work: Promise<T>): Promise<T> => {
      // The abandoned work settles once it sees the abort; nothing waits for it any more.
      work.catch(() => undefined);
      return Promise.race([work, failed]);
    },
    clear: () => clearTimeout(timer),
  };
}

async function authenticate(request: Request, entry: RestEndpoint) {
  const services = await getServices();
  // The entry's own token (GET /metrics: SVC_METRICS_TOKEN) stands for no principal: its handler
  // reads no one's documents.
  if (entry.alternativeToken && hasBearerToken(request, alternativeTokens()[entry.alternativeToken])) return { services };
  const roles = entry.auth as Exclude<RestEndpoint["auth"], "public">;
  const address = clientAddressOf(request);
  const authorization = request.headers.get("authorization");
  // A throttled address still passes a key this process resolved in the last minute (a key in use);
  // any other is refused before it is looked up, so a guess made then is never told right or wrong.
  const retryAfter = credentialRetryAfter(address);
  if (retryAfter !== undefined) {
    const inUse = recentlyResolvedApiKey(authorization, services.apiKeys);
    if (inUse === undefined) {
      noteCredentialRefusal("bearer");
      throw new HttpError(429, "Too many failed key checks from this address; try again later", { "Retry-After": String(retryAfter) });
    }
    services.apiKeyUses.record(inUse.apiKeyId);
    requireRole(inUse, roles);
    return { principal: inUse, services };
  }
  const principal = await authenticateApiKey({ db: services.db, authorization, cache: services.apiKeys, uses: services.apiKeyUses }).catch(
    (error: unknown) => {
      // A key that was sent and refused is a guess that failed; a request with no key at all is not.
      if (authorization !== null && toAppError(error)?.code === "UNAUTHENTICATED") noteCredentialFailure(address, "bearer");
      throw error;
    },
  );
  requireRole(principal, roles);
  return { principal, services };
}

/** The tokens an entry's `alternativeToken` may name, by setting. */
function alternativeTokens(): Record<string, string | undefined> {
  return { SVC_METRICS_TOKEN: webEnv().SVC_METRICS_TOKEN };
}

/** Whether the request's bearer token is `token` (compared in constant time; never when unset). */
function hasBearerToken(request: Request, token: string | undefined): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!token || !match?.[1]) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}
