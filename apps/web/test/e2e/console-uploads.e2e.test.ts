// The console's Uploads page within scope (docs/decisions.md "Uploads"): a scoped session lists only
// its scope's uploads, and an admin deletes one with the page's button, after which an image section
// can no longer name it. In a real browser on the production build.
import { createTestKey, createTestPair } from "@svc/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 90_000;

let adminKey = "";
let curatorAKey = "";
let curatorBKey = "";
let pairA = 0;

const world = useConsoleWorld(async (db) => {
  adminKey = await createTestKey(db, "admin", [], "Ops admin");
  pairA = await createTestPair(db, { name: "Team A wiki" });
  const pairB = await createTestPair(db, { name: "Team B wiki" });
  curatorAKey = await createTestKey(db, "curator", [pairA], "Team A");
  curatorBKey = await createTestKey(db, "curator", [pairB], "Team B");
});

const { uploadImage: upload } = world;

let obsoleteId = "";

beforeAll(async () => {
  await upload(curatorAKey, "team-a-chart.png");
  await upload(curatorBKey, "team-b-secret.png");
  obsoleteId = await upload(adminKey, "obsolete.png");
});

describe("the Uploads page", () => {
  it("shows a scoped session only its scope's uploads, and no delete button to a curator", { timeout: UI_TIMEOUT }, async () => {
    const { page } = world;
    await signIn(page, curatorAKey);
    await page.goto("/admin/uploads");
    const table = page.getByRole("table", { name: "Recent uploads" });
    await table.getByText("team-a-chart.png").waitFor();
    expect(await table.getByText("team-b-secret.png").count()).toBe(0);
    expect(await table.getByText("obsolete.png").count()).toBe(0);
    expect(await table.getByRole("button", { name: /^Delete / }).count()).toBe(0);
    await page.context().clearCookies();
  });

  it("lets an admin delete an upload, after which an image section cannot name it", { timeout: UI_TIMEOUT }, async () => {
    const { page } = world;
    await signIn(page, adminKey);
    await page.goto("/admin/uploads");
    const table = page.getByRole("table", { name: "Recent uploads" });
    await table.getByText("team-b-secret.png").waitFor();
    await table.getByRole("button", { name: "Delete obsolete.png" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete file" }).click();
    await table.getByText("obsolete.png").waitFor({ state: "detached" });
    expect(await world.database.db.uploadedFile.count({ where: { fileId: obsoleteId } })).toBe(0);
    await world.browser.screenshot("uploads-after-delete");

    const ingested = await world.rest("POST", "/svc-api/ingestion", adminKey, {
      document: { id: "uses-obsolete", semantic_identifier: "Uses obsolete", sections: [{ image_file_id: obsoleteId }], metadata: {} },
      cc_pair_id: pairA,
    });
    expect(ingested.status).toBe(422);
  });
});
