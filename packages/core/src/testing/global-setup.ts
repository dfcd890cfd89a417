// vitest globalSetup for everything above packages/db: the migrated template database of
// @svc/db/testing, with pg-boss and the job queues installed too.
import { createTestDatabaseSetup } from "@svc/db/testing/global-setup";
import { installJobQueues } from "../jobs/job-queue";

export default createTestDatabaseSetup(installJobQueues);
