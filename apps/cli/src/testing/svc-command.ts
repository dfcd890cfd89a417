import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDatabase, type TestDatabase } from "@svc/db/testing";
import { afterAll } from "vitest";

const svcEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/svc.js");
const run = promisify(execFile);

export interface SvcCommand {
  database: TestDatabase;
  /** Runs the built `svc <command> ...args` against the test database; rejects on a non-zero exit. */
  svc: (...args: string[]) => Promise<{ stdout: string; stderr: string }>;
  /** Runs it expecting a failure: its exit code (0 if it succeeded after all) and stderr. */
  failure: (...args: string[]) => Promise<{ code: number; stderr: string }>;
}

/**
 * A test database for one test file (dropped after its tests), called with a top-level `await`, and
 * one `svc` sub-command of the built CLI run against it.
 */
export async function useSvcCommand(command: string): Promise<SvcCommand> {
  const database = await createTestDatabase();
  afterAll(() => database.drop());
  const env = { ...process.env, DATABASE_URL: database.databaseUrl };
  const svc = (...args: string[]) => run(process.execPath, [svcEntry, command, ...args], { env });
  const failure = async (...args: string[]) => {
    const outcome = (await svc(...args).then(
      () => ({ code: 0, stderr: "" }),
      (reason: unknown) => reason,
    )) as { code: number; stderr: string };
    return { code: outcome.code, stderr: outcome.stderr };
  };
  return { database, svc, failure };
}
