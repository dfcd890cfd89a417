// How the global setup and the test files agree on databases. The template's URL travels in an
// environment variable, not vitest's provide/inject: apps resolve different copies of vitest (pnpm
// peer variants), and inject() from another copy finds nothing, while workers always inherit the
// environment the global setup leaves.
export const TEMPLATE_URL_ENV = "SVC_TEST_TEMPLATE_DATABASE_URL";

const TEMPLATE_PREFIX = "svc_test_tpl_";

/** The migrated template of one test run. */
export function templateName(runId: string): string {
  return `${TEMPLATE_PREFIX}${runId}`;
}

/** What every test database of the run starts with, so teardown can find the ones left behind. */
export function testDatabasePrefix(template: string): string {
  if (!template.startsWith(TEMPLATE_PREFIX)) throw new Error(`${template} is not a test template database`);
  return `svc_test_${template.slice(TEMPLATE_PREFIX.length)}_`;
}
