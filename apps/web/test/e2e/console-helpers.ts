// What the console's browser tests share: REST calls as a script makes them, and waiting for a
// page's text (the pages refresh themselves) with the server's output in the failure message.
import { waitFor } from "@svc/db/testing";
import type { Locator, Page } from "playwright-core";
import type { ProductionServer } from "../production-server";

export function consoleHelpers(server: () => ProductionServer) {
  return {
    /** A REST call as a script would make it. */
    rest: (method: string, path: string, key: string, body?: unknown): Promise<Response> =>
      fetch(`${server().base}/api${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),

    /** Waits until the locator's text satisfies the check. */
    waitForText: async (what: string, locator: Locator, check: (text: string) => boolean, timeoutMs = 30_000): Promise<string> => {
      let seen = "";
      return waitFor(
        what,
        async () => {
          seen = (await locator.textContent({ timeout: 1_000 }).catch(() => null)) ?? "";
          return check(seen) ? seen : undefined;
        },
        { timeoutMs, describe: () => `last seen: ${seen.slice(0, 1_000)}\nserver: ${server().output().slice(-2_000)}` },
      );
    },
  };
}

/** Signs the page in with an API key, as a user does, and waits for the console's first page. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto("/admin/sign-in");
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/admin\/connectors/);
}
