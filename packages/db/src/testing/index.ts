// Test helpers. The vitest global setup they rely on is a separate entry point,
// @svc/db/testing/global-setup, so that test files never load the embedded server.
export { createTestDatabase, type TestDatabase } from "./create-test-database";
export { findFreePort } from "../free-port";
export { waitFor, type WaitForOptions } from "./wait-for";
export { freezePostgres } from "./freeze-postgres";
export { timedAnswer, type TimedAnswer } from "./timed-answer";
