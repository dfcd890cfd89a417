/** Failed tries in a row after which an endpoint is held to one probe at a time. */
export const FAILURES_TO_OPEN = 5;
/** The wait before the first probe; each later one waits as long as the endpoint has failed so far. */
export const PROBE_FIRST_DELAY_MS = 5_000;
export const PROBE_MAX_DELAY_MS = 60_000;

interface Failing {
  failures: number;
  /** When the endpoint's tries reached FAILURES_TO_OPEN failures in a row (performance.now()). */
  openedAt?: number;
  probeAt: number;
}

/**
 * Which endpoints are failing, as one worker's tries end (docs/decisions.md "Webhooks"). After
 * FAILURES_TO_OPEN failed tries in a row an endpoint is open: none of its deliveries is taken but one
 * probe at a time, the first PROBE_FIRST_DELAY_MS after, each later one as long after as the endpoint
 * has been failing (so the waits double), PROBE_MAX_DELAY_MS at most. A delivered try closes it, and
 * its backlog goes out at its full share again. A receiver that is down so costs a try per probe,
 * not one per delivery and retry, each a write of its own: its deliveries wait in the table untouched.
 */
export class EndpointBreakers {
  readonly #failing = new Map<number, Failing>();

  /** A try to the endpoint ended at `now` (performance.now()). */
  noteTry(endpointId: number, delivered: boolean, now: number): void {
    if (delivered) {
      this.#failing.delete(endpointId);
      return;
    }
    const state = this.#failing.get(endpointId) ?? { failures: 0, probeAt: 0 };
    state.failures += 1;
    if (state.failures >= FAILURES_TO_OPEN) {
      state.openedAt ??= now;
      state.probeAt = now + Math.min(Math.max(PROBE_FIRST_DELAY_MS, now - state.openedAt), PROBE_MAX_DELAY_MS);
    }
    this.#failing.set(endpointId, state);
  }

  /** How many more of the endpoint's deliveries may be taken now, with `inFlight` of them being sent and a share of `share`. */
  room(endpointId: number, { inFlight, share, now }: { inFlight: number; share: number; now: number }): number {
    const state = this.#failing.get(endpointId);
    if (state?.openedAt === undefined) return Math.max(share - inFlight, 0);
    return inFlight === 0 && now >= state.probeAt ? 1 : 0;
  }

  /** The endpoints whose room may differ from a full share: those failing. */
  failingEndpoints(): number[] {
    return [...this.#failing.keys()];
  }
}
