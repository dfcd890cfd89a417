// The web tests' poison is core's (a trigger that rejects chunks holding a word), so both fail alike.
export { installPoisonTrigger, POISON, removePoisonTrigger } from "@svc/core/testing";
