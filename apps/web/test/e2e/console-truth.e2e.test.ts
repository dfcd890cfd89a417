// The console tells the truth (issue 15), in a real browser on the production build with a real
// indexing worker: failed documents are one number everywhere (health, listing, a pair's page), a
// pair's page filters, explains and retries its failed documents, a key's "last used" is recorded,
// and an image named by a text section keeps its file id on its chunk and shows as a thumbnail.
// Indexing fails for real: a trigger on the chunk table rejects chunks holding a word.
import { createTestKey, createTestPair } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import type { Locator } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { insertIndexAttempts, setPairStatus } from "../connectors";
import { installPoisonTrigger, POISON, removePoisonTrigger } from "../trpc/poison";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 90_000;
/** A 2×2 red PNG. */
const RED_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  "base64",
);

let adminKey = "";
let scriptKey = "";
let tickets = 0;
let flaky = 0;
let imageFileId = "";

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Ops admin");
  scriptKey = await createTestKey(db, "curator", [], "nightly-script");
  tickets = await createTestPair(db, { name: "Support tickets", source: "zendesk" });
  flaky = await createTestPair(db, { name: "Flaky wiki", source: "confluence" });
  await setPairStatus(db, flaky, "ACTIVE");
  await insertIndexAttempts(db, flaky, Array.from({ length: 5 }, () => ({ status: "failed" as const })));
  await installPoisonTrigger(db);
});
const { rest, waitForText } = world;

beforeAll(async () => {
  await world.ingestTickets(scriptKey, tickets, [
    ["ticket-ok-1", "The printer is fixed."],
    ["ticket-ok-2", "Password reset done."],
    ["ticket-bad-1", `Contains a ${POISON} one.`],
    ["ticket-bad-2", `Contains a ${POISON} two.`],
    ["ticket-bad-3", `Contains a ${POISON} three.`],
  ]);
});

/** Whether an <img> has loaded real pixels (a broken image has no natural width). */
async function imageLoaded(image: Locator): Promise<boolean> {
  return image.evaluate((element) => element instanceof HTMLImageElement && element.complete && element.naturalWidth > 0);
}

describe("the console tells the truth", () => {
  it("signs in with an admin key", { timeout: UI_TIMEOUT }, async () => {
    await signIn(world.page, adminKey);
  });

  it("counts failed documents once, the same on health and on the listing", { timeout: UI_TIMEOUT }, async () => {
    await world.page.goto("/admin/health");
    await waitForText("the failed documents tile", world.page.getByTestId("failed-documents-tile"), (text) => text === "3");
    expect(await world.page.getByTestId("failed-documents-count").textContent()).toBe("3");
    expect(await world.page.getByRole("table", { name: "Failed documents" }).locator("tbody tr").count()).toBe(3);
    // No second, contradicting notion of "failed" (pg-boss jobs) is on the world.page.
    expect(await world.page.getByText("jobs that gave up").count()).toBe(0);
    await world.browser.screenshot("truth-health");

    await world.page.goto("/admin/connectors");
    await waitForText("the listing's failed total", world.page.getByTestId("failed-documents-total"), (text) => text === "3");
    const row = world.page.locator(`tr[data-cc-pair-id="${tickets}"]`);
    await waitForText("the pair's failed badge", row.getByTestId("pair-failed-documents"), (text) => text === "3");
    expect(await world.page.locator(`tr[data-cc-pair-id="${flaky}"]`).getByText("Repeated errors").isVisible()).toBe(true);
    await world.browser.screenshot("truth-connectors");
  });

  it("shows a pair's repeated-error state as the listing does", { timeout: UI_TIMEOUT }, async () => {
    await world.page.goto(`/admin/connectors/${flaky}`);
    await world.page.getByRole("heading", { level: 1 }).getByText("Repeated errors").waitFor();
  });

  it("filters a pair's documents by status with the failure reason, and retries one and then all", { timeout: UI_TIMEOUT }, async () => {
    await world.page.goto(`/admin/connectors/${tickets}`);
    await waitForText("the pair's failed count", world.page.getByTestId("pair-failed-documents"), (text) => text === "3");
    const table = world.page.getByRole("table", { name: "Documents of this connector" });
    await waitForText("every document", table.locator("tbody"), (text) => text.includes("ticket-ok-1") && text.includes("ticket-bad-3"));
    expect(await table.locator("tbody tr").count()).toBe(5);

    await world.page.getByRole("radiogroup", { name: "Show documents" }).getByText("Failed (3)").click();
    await waitForText("only the failed documents", table.locator("tbody"), (text) => !text.includes("ticket-ok-1") && text.includes("ticket-bad-1"));
    expect(await table.locator("tbody tr").count()).toBe(3);
    expect(await table.locator("tbody tr").first().textContent()).toContain("chunk rejected");
    await world.browser.screenshot("truth-pair-failed");

    await world.page.getByRole("radiogroup", { name: "Show documents" }).getByText("Indexed (2)").click();
    await waitForText("only the indexed documents", table.locator("tbody"), (text) => text.includes("ticket-ok-1") && !text.includes("ticket-bad-1"));
    await world.page.getByRole("radiogroup", { name: "Show documents" }).getByText("Failed (3)").click();
    await waitForText("the failed documents again", table.locator("tbody"), (text) => text.includes("ticket-bad-1") && !text.includes("ticket-ok-1"));

    // One retry while the poison is still there: the document stays failed (a retry is no fix) and
    // its new try fails again.
    const jobsOf = (id: string) => world.database.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'index-document' AND data->>'documentId' = ${id}`;
    const before = (await jobsOf("ticket-bad-1"))[0]?.n ?? 0;
    await table.getByRole("button", { name: "Retry Ticket ticket-bad-1" }).click();
    await waitFor("the retry's job", async () => (((await jobsOf("ticket-bad-1"))[0]?.n ?? 0) > before ? true : undefined));
    expect((await world.database.db.document.findUniqueOrThrow({ where: { id: "ticket-bad-1" } })).indexingStatus).toBe("failed");
    expect(await world.page.getByTestId("pair-failed-documents").textContent()).toBe("3");

    // With the cause gone, "Retry all failed" fixes them for real: every count goes to 0.
    await removePoisonTrigger(world.database.db);
    await world.page.getByRole("button", { name: "Retry all failed" }).click();
    await world.page.getByRole("dialog").getByRole("button", { name: "Retry all" }).click();
    await waitForText("no failed documents on the pair", world.page.getByTestId("pair-failed-documents"), (text) => text === "0", 60_000);
    await world.page.goto("/admin/health");
    await waitForText("no failed documents on health", world.page.getByTestId("failed-documents-tile"), (text) => text === "0");
  });

  it("keeps an image section's file id on its chunk and shows its thumbnail on the document and on Uploads", { timeout: UI_TIMEOUT }, async () => {
    const form = new FormData();
    form.append("files", new Blob([RED_PNG], { type: "image/png" }), "red.png");
    const uploaded = await fetch(`${world.server.base}/api/user/file/upload`, { method: "POST", headers: { authorization: `Bearer ${adminKey}` }, body: form });
    expect(uploaded.status).toBe(200);
    imageFileId = ((await uploaded.json()) as { user_files: { file_id: string }[] }).user_files[0]?.file_id ?? "";
    expect(imageFileId).not.toBe("");
    const ingested = await rest("POST", "/svc-api/ingestion", adminKey, {
      document: {
        id: "chart-doc",
        semantic_identifier: "Quarterly chart",
        sections: [{ text: "Intro text." }, { image_file_id: imageFileId, text: "A red square chart." }],
        metadata: {},
      },
      cc_pair_id: tickets,
    });
    expect(ingested.status).toBe(200);
    await waitFor("the chart indexed", async () =>
      (await world.database.db.document.findUnique({ where: { id: "chart-doc" } }))?.indexingStatus === "indexed" ? true : undefined,
    );
    const chunks = await world.database.db.documentChunk.findMany({ where: { documentId: "chart-doc" }, orderBy: { chunkIndex: "asc" } });
    expect(chunks.map((chunk) => [chunk.content, chunk.imageFileId])).toEqual([
      ["Intro text.", null],
      ["A red square chart.", imageFileId],
    ]);

    // The file is served to a console session only, and only to the console's own pages.
    expect((await fetch(`${world.server.base}/api/admin/files/${imageFileId}`, { headers: { origin: world.server.base } })).status).toBe(401);
    expect((await fetch(`${world.server.base}/api/admin/files/${imageFileId}`)).status).toBe(403);

    await world.page.goto("/admin/documents/chart-doc");
    await world.page.getByRole("heading", { name: /Quarterly chart/ }).waitFor();
    const sectionThumbnail = world.page.getByRole("img", { name: "Thumbnail of section 2" });
    await waitFor("the section's thumbnail", async () => ((await imageLoaded(sectionThumbnail)) ? true : undefined));
    await world.page.getByRole("tab", { name: /Chunks/ }).click();
    const chunkThumbnail = world.page.getByRole("img", { name: "Thumbnail of chunk 1" });
    await waitFor("the chunk's thumbnail", async () => ((await imageLoaded(chunkThumbnail)) ? true : undefined));
    await world.browser.screenshot("truth-document-image");
    // The page's cookie, sent as the page's own request would be (an API request carries no Sec-Fetch-Site).
    const sameOrigin = { headers: { origin: world.server.base } };
    const served = await world.page.request.get(`/api/admin/files/${imageFileId}`, sameOrigin);
    expect(served.status()).toBe(200);
    expect(served.headers()["content-type"]).toBe("image/png");
    expect(served.headers()["x-content-type-options"]).toBe("nosniff");
    expect(Buffer.from(await served.body()).equals(RED_PNG)).toBe(true);
    expect((await world.page.request.get("/api/admin/files/not-a-file", sameOrigin)).status()).toBe(404);
    expect((await world.page.request.get("/api/admin/files/00000000-0000-4000-8000-000000000000", sameOrigin)).status()).toBe(404);

    await world.page.goto("/admin/uploads");
    const uploadThumbnail = world.page.getByRole("table", { name: "Recent uploads" }).getByRole("img", { name: "Thumbnail of red.png" });
    await waitFor("the upload's thumbnail", async () => ((await imageLoaded(uploadThumbnail)) ? true : undefined));
    await world.browser.screenshot("truth-uploads");
  });

  it("shows when each key was last used", { timeout: UI_TIMEOUT }, async () => {
    await world.page.goto("/admin/keys");
    const keys = world.page.getByRole("table", { name: "API keys" });
    // The REST script's key and the console's own key were both used; a fresh key never was.
    await createTestKey(world.database.db, "basic", [], "unused key");
    await world.page.reload();
    const lastUsed = (name: string) => keys.locator("tr", { hasText: name }).locator("td").nth(5);
    await waitForText("the script key's last use", lastUsed("nightly-script"), (text) => text !== "" && text !== "never");
    await waitForText("the admin key's last use", lastUsed("Ops admin"), (text) => text !== "" && text !== "never");
    expect(await lastUsed("unused key").textContent()).toBe("never");
    await world.browser.screenshot("truth-keys");
    expect(world.browser.pageErrors.map((error) => error.message)).toEqual([]);
  });
});
