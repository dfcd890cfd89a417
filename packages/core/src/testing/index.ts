// Test helpers for packages that build on core. The vitest global setup is ./global-setup.ts,
// referenced by path from each package's vitest.config.ts.
export { createTestJobQueue, useTestJobQueue, type TestJobQueue } from "./create-test-job-queue";
export { holdPairLocks, type HeldLocks } from "./hold-pair-locks";
export { installPoisonTrigger, POISON, removePoisonTrigger } from "./poison-chunks";
export {
  createTestKey,
  createTestPair,
  currentIndexJobs,
  indexTestDocuments,
  ingestAndIndexTestDocuments,
  ingestTestDocument,
  postTestIngestion,
  testIngestionBody,
  waitForIndexed,
  type TestDocument,
} from "./factories";
export { makeTestIndexDir, removeTestSearchIndex, testSearchIndex } from "./test-search-index";
