// The Webhooks page in a real browser on the production build, with a worker that indexes and sends
// webhooks (SVC_WEBHOOK_ALLOW_PRIVATE: the endpoints are this test's node:http receiver on loopback).
// An admin adds an endpoint and copies its secret, sees a document's delivery listed as delivered (the
// receiver checks its signature with that secret), sees a failing receiver's 500 among the failures,
// and resends it once the receiver recovers: the receiver gets the same webhook-id again.
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createTestKey, createTestPair } from "@svc/core/testing";
import { waitFor } from "@svc/db/testing";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, useConsoleWorld } from "./console-helpers";

const UI_TIMEOUT = 180_000;

interface Received {
  path: string;
  id: string;
  signature: string;
  timestamp: string;
  body: string;
  answered: number;
}
const received: Received[] = [];
/** Paths answering 500 for now. */
const failing = new Set<string>();
const receiver = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    const path = request.url ?? "";
    const answered = failing.has(path) ? 500 : 200;
    const header = (name: string) => String(request.headers[name]);
    received.push({ path, id: header("webhook-id"), signature: header("webhook-signature"), timestamp: header("webhook-timestamp"), body, answered });
    response.writeHead(answered).end();
  });
});
let receiverBase = "";

let adminKey = "";
let wiki = 0;
let tickets = 0;
const world = useConsoleWorld(
  async (db) => {
    adminKey = await createTestKey(db, "admin", [], "Webhook console admin");
    wiki = await createTestPair(db, { name: "Team wiki" });
    tickets = await createTestPair(db, { name: "Support tickets" });
  },
  { webhooks: true },
);
const { rest, waitForText } = world;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

function signedWith(secret: string, delivery: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${delivery.id}.${delivery.timestamp}.${delivery.body}`).digest("base64");
  return delivery.signature.split(" ").includes(`v1,${expected}`);
}

async function ingest(id: string, ccPairId: number): Promise<void> {
  const response = await rest("POST", "/svc-api/ingestion", adminKey, {
    document: { id, semantic_identifier: id, sections: [{ text: `The text of ${id}.` }], metadata: {} },
    cc_pair_id: ccPairId,
  });
  expect(response.status).toBe(200);
}

/** Adds an endpoint through the page's form for one pair, and answers the secret it shows once. */
async function addEndpoint(path: string, pairName: string): Promise<string> {
  const page = world.page;
  const form = page.getByRole("form", { name: "Add a webhook endpoint" });
  await form.getByRole("textbox", { name: /^URL/ }).fill(`${receiverBase}${path}`);
  await form.getByRole("combobox", { name: "Pairs", exact: true }).click();
  await page.getByRole("option", { name: new RegExp(`^#\\d+ ${pairName}$`) }).click();
  await page.keyboard.press("Escape");
  await form.getByRole("button", { name: "Add endpoint" }).click();
  const secret = (await page.getByTestId("new-webhook-secret").textContent())?.trim() ?? "";
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  return secret;
}

const deliveries = () => world.page.getByRole("table", { name: "Webhook deliveries" });
const whichDeliveries = () => world.page.getByRole("radiogroup", { name: "Which deliveries" });
const deliveryRow = (eventId: string): Locator => deliveries().locator(`tr[data-event-id="${eventId}"]`);

describe("the Webhooks page", () => {
  it("adds an endpoint, shows its secret once, and lists a document's delivery as delivered", { timeout: UI_TIMEOUT }, async () => {
    const page = world.page;
    await signIn(page, adminKey);
    await page.getByRole("link", { name: /Webhooks/ }).click();
    await page.waitForURL(/\/admin\/webhooks$/);
    await page.getByText("No webhook endpoints yet").waitFor();

    const secret = await addEndpoint("/wiki", "Team wiki");
    await page.getByRole("button", { name: "Copy secret" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const endpoints = page.getByRole("table", { name: "Webhook endpoints" });
    await endpoints.getByText(`${receiverBase}/wiki`).waitFor();
    expect(await endpoints.locator("tr[data-endpoint-id]").first().textContent()).toContain(`#${wiki}`);
    // Shown once: gone after Done, and never again on a reload.
    await page.getByRole("button", { name: "Done" }).click();
    await page.reload();
    await endpoints.getByText(`${receiverBase}/wiki`).waitFor();
    expect(await page.getByTestId("new-webhook-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    await ingest("wiki-runbook", wiki);
    const delivery = await waitFor("the delivery at the receiver", () => received.find((entry) => entry.path === "/wiki"), { timeoutMs: 60_000 });
    expect(JSON.parse(delivery.body)).toMatchObject({ id: delivery.id, type: "document.indexed", document_id: "wiki-runbook", cc_pair_ids: [wiki] });
    expect(signedWith(secret, delivery)).toBe(true);
    // The page refreshes itself: the delivery shows as delivered, with the receiver's answer.
    await waitForText("the delivered row", deliveryRow(delivery.id), (text) => text.includes("delivered"));
    const row = await deliveryRow(delivery.id).textContent();
    expect(row).toContain("document.indexed");
    expect(row).toContain("wiki-runbook");
    expect(row).toContain("HTTP 200");
    await world.browser.screenshot("webhooks");
  });

  it("shows a failing receiver's 500 among the failures, and resends it once the receiver recovers: same webhook-id", { timeout: UI_TIMEOUT }, async () => {
    const page = world.page;
    failing.add("/tickets");
    await addEndpoint("/tickets", "Support tickets");
    await page.getByRole("button", { name: "Done" }).click();
    // The new endpoint's deliveries are the ones shown.
    await page.getByRole("region", { name: /^Deliveries of endpoint #\d+$/ }).getByText(`${receiverBase}/tickets`).waitFor();

    await ingest("ticket-4711", tickets);
    const first = await waitFor("the failed try at the receiver", () => received.find((entry) => entry.path === "/tickets"), { timeoutMs: 60_000 });
    expect(first.answered).toBe(500);
    await waitForText("the failed row", deliveryRow(first.id), (text) => text.includes("retrying") && text.includes("HTTP 500"));
    await whichDeliveries().getByText("Failures").click();
    await waitForText("the row among the failures", deliveryRow(first.id), (text) => text.includes("HTTP 500"));

    // A day of failures later (retries are hours apart by then), it is a dead letter.
    await world.database.db.webhookDelivery.updateMany({
      where: { endpoint: { url: `${receiverBase}/tickets` } },
      data: { status: "dead", finishedAt: new Date(), leasedUntil: null, retryUntil: new Date() },
    });
    await waitForText("the dead letter", deliveryRow(first.id), (text) => text.includes("dead"));
    await world.browser.screenshot("webhooks-failures");

    failing.delete("/tickets");
    const before = received.filter((entry) => entry.id === first.id).length;
    await deliveryRow(first.id).getByRole("button", { name: `Resend ${first.id}` }).click();
    const resent = await waitFor(
      "the resent delivery at the receiver",
      () => received.filter((entry) => entry.id === first.id).slice(before).find((entry) => entry.answered === 200),
      { timeoutMs: 30_000 },
    );
    expect(resent.body).toBe(first.body);
    // Delivered, it leaves the failures and shows as delivered among the last deliveries.
    await waitFor("the failures emptied", async () => ((await deliveryRow(first.id).count()) === 0 ? true : undefined));
    await whichDeliveries().getByText("Last deliveries").click();
    await waitForText("the delivered row", deliveryRow(first.id), (text) => text.includes("delivered") && text.includes("HTTP 200"));
    expect(world.browser.pageErrors.map((error) => error.message)).toEqual([]);
  });

  it("deletes an endpoint after a confirmation", { timeout: UI_TIMEOUT }, async () => {
    const page = world.page;
    await page.getByRole("button", { name: `Delete ${receiverBase}/tickets` }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("This cannot be undone").waitFor();
    await dialog.getByRole("button", { name: "Delete endpoint" }).click();
    await waitFor("the row gone", async () =>
      (await page.getByRole("table", { name: "Webhook endpoints" }).getByText(`${receiverBase}/tickets`).count()) === 0 ? true : undefined,
    );
    const listed = (await (await rest("GET", "/manage/admin/webhook", adminKey)).json()) as { url: string }[];
    expect(listed.map((endpoint) => endpoint.url)).toEqual([`${receiverBase}/wiki`]);
  });
});
