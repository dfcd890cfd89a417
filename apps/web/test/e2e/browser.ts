// Debian's Chromium driven by playwright-core (no downloaded browser builds): one fresh profile per
// test file, and full-page screenshots saved as test artifacts.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.SVC_CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test-artifacts/screenshots");

const VIEWPORT = { width: 1440, height: 900 };

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the pages so far: a console page that throws fails the test. */
  pageErrors: Error[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser({ baseURL }: { baseURL: string }): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (.ci/run does) or set SVC_CHROMIUM_PATH`);
  }
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), "svc-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    baseURL,
    viewport: VIEWPORT,
    // The copy buttons write to the clipboard.
    permissions: ["clipboard-read", "clipboard-write"],
  });
  context.setDefaultTimeout(20_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: Error[] = [];
  page.on("pageerror", (error) => pageErrors.push(error));
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    page,
    pageErrors,
    screenshot: async (name) => {
      // The whole page in a window as tall as it, rather than fullPage: the console's fixed header and
      // navigation then span the picture as they do on a screen.
      const viewport = page.viewportSize() ?? VIEWPORT;
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), animations: "disabled" });
      await page.setViewportSize(viewport);
    },
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
