import { webEnv } from "./env";
import { webMetrics } from "./observability/web-metrics";

/**
 * Credential guessing is throttled per client address (decisions.md "Limits and overload"): after
 * SVC_CREDENTIAL_FAILURES_PER_MINUTE failed key checks or sign-ins within a minute, that address's
 * next ones are refused with 429 and Retry-After until the minute is over, before any key is looked
 * at (so a guess made then cannot be told right from wrong). Valid keys never count; a key this
 * process resolved in the last minute (one in use) still passes a throttled address; other
 * addresses are not slowed. The counts live in this web process's memory: each process of a
 * deployment counts on its own, and a restart forgets them.
 */

/**
 * The header server.ts sets on every request to the socket's peer address, replacing any value a
 * client sent; without it (`next dev`, tests calling handlers) there is no address and no throttle.
 */
export const CLIENT_ADDRESS_HEADER = "x-svc-client-address";

export type CredentialKind = "bearer" | "sign_in";

const WINDOW_MS = 60_000;
/** Addresses tracked at most; past it, expired windows go first, then the oldest. */
const MAX_TRACKED_ADDRESSES = 100_000;

interface FailureWindow {
  startedAt: number;
  failures: number;
}

// Kept on globalThis: the REST front (server.ts) and Next's route bundles load this module apart.
const holder = globalThis as typeof globalThis & { svcCredentialFailures?: Map<string, FailureWindow> };

function windows(): Map<string, FailureWindow> {
  holder.svcCredentialFailures ??= new Map();
  return holder.svcCredentialFailures;
}

/** The client address server.ts recorded on the request, if any. */
export function clientAddressOf(request: Request): string | undefined {
  return request.headers.get(CLIENT_ADDRESS_HEADER) ?? undefined;
}

/** Seconds the address must wait when it has used up its failures for this minute, else undefined. */
export function credentialRetryAfter(address: string | undefined): number | undefined {
  const limit = webEnv().SVC_CREDENTIAL_FAILURES_PER_MINUTE;
  if (address === undefined || limit === 0) return undefined;
  const window = currentWindow(address);
  if (!window || window.failures < limit) return undefined;
  return Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - Date.now()) / 1000));
}

/** Counts one request refused by the throttle. */
export function noteCredentialRefusal(kind: CredentialKind): void {
  webMetrics().credentialRefusals.inc({ kind });
}

/** Counts one failed key check or sign-in from the address. */
export function noteCredentialFailure(address: string | undefined, kind: CredentialKind): void {
  webMetrics().credentialFailures.inc({ kind });
  if (address === undefined || webEnv().SVC_CREDENTIAL_FAILURES_PER_MINUTE === 0) return;
  const tracked = windows();
  const window = currentWindow(address);
  if (window) {
    window.failures += 1;
    return;
  }
  if (tracked.size >= MAX_TRACKED_ADDRESSES) forgetSome(tracked);
  tracked.set(address, { startedAt: Date.now(), failures: 1 });
}

function currentWindow(address: string): FailureWindow | undefined {
  const window = windows().get(address);
  if (window && Date.now() - window.startedAt >= WINDOW_MS) {
    windows().delete(address);
    return undefined;
  }
  return window;
}

function forgetSome(tracked: Map<string, FailureWindow>): void {
  // A Map keeps insertion order, and a window is inserted when it starts: the oldest come first.
  const now = Date.now();
  for (const [address, window] of tracked) {
    if (tracked.size < MAX_TRACKED_ADDRESSES && now - window.startedAt < WINDOW_MS) break;
    tracked.delete(address);
  }
}
