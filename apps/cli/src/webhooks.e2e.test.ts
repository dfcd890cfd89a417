// `svc webhooks add|list|remove` against a running svc (`svc start`, web and worker), over its REST
// API with admin keys. The endpoint is a node:http receiver on loopback, so svc runs with
// SVC_WEBHOOK_ALLOW_PRIVATE; the receiver checks each delivery's signature with the secret `add` printed.
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createApiKey } from "@svc/core";
import { createTestPair } from "@svc/core/testing";
import { findFreePort, waitFor } from "@svc/db/testing";
import type { SvcEvent } from "@svc/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc, useRunningSvc } from "./testing/run-svc";

const svc = useRunningSvc({ env: { SVC_WEBHOOK_ALLOW_PRIVATE: "1" } });

interface Received {
  path: string;
  event: SvcEvent;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const receiver = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    received.push({ path: request.url ?? "", event: JSON.parse(body) as SvcEvent, headers: request.headers, body });
    response.writeHead(204).end();
  });
});
let receiverBase = "";
let adminEnv: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  adminEnv = { ...svc.env, SVC_API_KEY: (await createApiKey({ db: svc.database.db, name: "webhooks cli", role: "admin" })).key };
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** The Standard Webhooks signature check, as a receiver does it. */
function signedWith(secret: string, { headers, body }: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${String(headers["webhook-id"])}.${String(headers["webhook-timestamp"])}.${body}`).digest("base64");
  return String(headers["webhook-signature"]).split(" ").includes(`v1,${expected}`);
}

const webhooks = async (env: NodeJS.ProcessEnv, ...args: string[]) => {
  const run = await runSvc(["webhooks", ...args], { env });
  expect(run.code, run.stderr).toBe(0);
  return run;
};

/** `svc webhooks list`'s rows, each cell keyed by its (upper-case) header. */
async function listed(env: NodeJS.ProcessEnv): Promise<Record<string, string>[]> {
  const [header, ...rows] = (await webhooks(env, "list")).stdout.trimEnd().split("\n");
  const headers = header!.split(/\s{2,}/);
  expect(headers).toEqual(["ID", "PAIRS", "EVENTS", "CREATED", "URL"]);
  return rows.map((row): Record<string, string> => Object.fromEntries(row.split(/\s{2,}/).map((cell, column): [string, string] => [headers[column] ?? "", cell])));
}

describe("svc webhooks", () => {
  it("adds an endpoint whose printed secret signs what svc sends it, lists it, and removes it", { timeout: 180_000 }, async () => {
    const pair = await createTestPair(svc.database.db, { name: "Webhook CLI pair" });
    const added = await webhooks(adminEnv, "add", `${receiverBase}/indexed`, "--pair", String(pair), "--event", "document.indexed");
    const secret = added.stdout.trimEnd().split("\n").at(-1)!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(added.stderr).toContain(`for ${receiverBase}/indexed (pairs: ${pair}; events: document.indexed)`);
    const everything = JSON.parse((await webhooks(adminEnv, "add", `${receiverBase}/all`, "--json")).stdout) as { id: number; secret: string; cc_pair_ids: null };
    expect(everything).toMatchObject({ cc_pair_ids: null, event_types: null, secret: expect.stringMatching(/^whsec_/) as unknown });

    const rows = await listed(adminEnv);
    const own = rows.find((row) => row.URL === `${receiverBase}/indexed`);
    expect(own).toMatchObject({ PAIRS: String(pair), EVENTS: "document.indexed" });
    expect(rows.find((row) => row.URL === `${receiverBase}/all`)).toMatchObject({ ID: String(everything.id), PAIRS: "all", EVENTS: "all" });
    const json = JSON.parse((await webhooks(adminEnv, "list", "--json")).stdout) as { id: number; url: string; secret?: string }[];
    expect(json.map((endpoint) => endpoint.url)).toEqual([`${receiverBase}/indexed`, `${receiverBase}/all`]);
    expect(json.every((endpoint) => endpoint.secret === undefined)).toBe(true);

    // A document of the pair: svc tells the endpoint, signed with the secret `add` printed.
    const ingested = await fetch(`${svc.apiUrl}/svc-api/ingestion`, {
      method: "POST",
      headers: { authorization: `Bearer ${String(adminEnv.SVC_API_KEY)}`, "content-type": "application/json" },
      body: JSON.stringify({ document: { id: "cli-hook", semantic_identifier: "cli hook", sections: [{ text: "lighthouse log" }], metadata: {} }, cc_pair_id: pair }),
    });
    expect(ingested.status).toBe(200);
    const delivery = await waitFor(
      "the document.indexed delivery",
      () => received.find((entry) => entry.path === "/indexed" && entry.event.document_id === "cli-hook"),
      { timeoutMs: 60_000 },
    );
    expect(delivery.event).toMatchObject({ type: "document.indexed", cc_pair_ids: [pair] });
    expect(signedWith(secret, delivery)).toBe(true);

    const removed = await webhooks(adminEnv, "remove", own!.ID!);
    expect(removed.stdout).toContain(`Removed webhook endpoint ${own!.ID} (${receiverBase}/indexed)`);
    expect((await listed(adminEnv)).map((row) => row.URL)).toEqual([`${receiverBase}/all`]);
    await webhooks(adminEnv, "remove", String(everything.id));
    expect((await webhooks(adminEnv, "list")).stdout).toBe("No webhook endpoints.\n");
  });

  it("shows a scoped admin key its own pairs' endpoints only", { timeout: 60_000 }, async () => {
    const mine = await createTestPair(svc.database.db, { name: "Scoped mine" });
    const theirs = await createTestPair(svc.database.db, { name: "Scoped theirs" });
    const scopedEnv = { ...svc.env, SVC_API_KEY: (await createApiKey({ db: svc.database.db, name: "scoped", role: "admin", ccPairIds: [mine] })).key };
    await webhooks(adminEnv, "add", `${receiverBase}/theirs`, "--pair", String(theirs));
    await webhooks(adminEnv, "add", `${receiverBase}/every-pair`);
    // Naming no pair, a scoped key registers for its own.
    const added = await webhooks(scopedEnv, "add", `${receiverBase}/mine`);
    expect(added.stderr).toContain(`(pairs: ${mine}; events: all)`);
    expect((await listed(scopedEnv)).map((row) => row.URL)).toEqual([`${receiverBase}/mine`]);
    expect((await listed(adminEnv)).map((row) => row.URL).sort()).toEqual([`${receiverBase}/every-pair`, `${receiverBase}/mine`, `${receiverBase}/theirs`]);
    const refused = await runSvc(["webhooks", "add", `${receiverBase}/x`, "--pair", String(theirs)], { env: scopedEnv });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("svc answered 403");
  });

  it("refuses bad input with svc's reason or a usage error", { timeout: 60_000 }, async () => {
    const badEvent = await runSvc(["webhooks", "add", `${receiverBase}/x`, "--event", "document.created"], { env: adminEnv });
    expect(badEvent.code).toBe(2);
    expect(badEvent.stderr).toContain('Not an event type: "document.created"');
    expect((await runSvc(["webhooks", "remove", "abc"], { env: adminEnv })).code).toBe(2);
    const noKey = await runSvc(["webhooks", "list"], { env: { ...svc.env, SVC_API_KEY: "" } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("svc webhooks needs an admin API key");

    const credentials = await runSvc(["webhooks", "add", "http://user:secret@127.0.0.1:9/x"], { env: adminEnv });
    expect(credentials.code).toBe(1);
    expect(credentials.stderr).toContain("svc answered 400: A webhook URL may not carry credentials.");
    const unknown = await runSvc(["webhooks", "remove", "424242"], { env: adminEnv });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("svc answered 404: No such webhook endpoint");
    const curator = await runSvc(["webhooks", "list"], { env: svc.env });
    expect(curator.code).toBe(1);
    expect(curator.stderr).toContain("svc answered 403");
    // A port nothing listens on.
    const nowhere = `http://127.0.0.1:${await findFreePort()}/api`;
    const unreachable = await runSvc(["webhooks", "list", "--url", nowhere], { env: adminEnv });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`svc at ${nowhere} could not be reached: ECONNREFUSED`);
  });
});
