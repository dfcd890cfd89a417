// `svc webhooks add|list|remove` against a running svc, through @svc/client (docs/decisions.md "Webhooks").
import { createApiKey } from "@svc/core";
import { beforeAll, describe, expect, it } from "vitest";
import { runSvc, useRunningSvc } from "./testing/run-svc";

const svc = useRunningSvc();
let env: NodeJS.ProcessEnv = {};
beforeAll(async () => {
  const adminKey = (await createApiKey({ db: svc.database.db, name: "webhook commands", role: "admin" })).key;
  env = { ...svc.env, SVC_API_KEY: adminKey };
});

describe("svc webhooks", () => {
  it("adds an endpoint (its secret alone on stdout's last line), lists it without the secret, and removes it", async () => {
    // A public address literal: svc runs without SVC_WEBHOOK_ALLOW_PRIVATE, and nothing is sent here.
    const added = await runSvc(["webhooks", "add", "https://93.184.216.34/hook", "--event", "document.indexed,document.failed"], { env });
    expect(added.code, added.stderr).toBe(0);
    const secret = added.stdout.trim().split("\n").at(-1);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(added.stderr).toMatch(/Registered webhook (\d+) for https:\/\/93\.184\.216\.34\/hook \(every pair; document\.indexed,document\.failed\)/);

    const listed = await runSvc(["webhooks", "list", "--json"], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const endpoints = JSON.parse(listed.stdout) as { id: number; url: string; event_types: string[] }[];
    expect(endpoints).toEqual([expect.objectContaining({ url: "https://93.184.216.34/hook", cc_pair_ids: null, event_types: ["document.indexed", "document.failed"] })]);
    expect(listed.stdout).not.toContain("whsec_");
    const table = await runSvc(["webhooks", "list"], { env });
    expect(table.stdout).toMatch(/https:\/\/93\.184\.216\.34\/hook\s+all\s+document\.indexed,document\.failed/);

    const removed = await runSvc(["webhooks", "remove", String(endpoints[0]?.id)], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Removed webhook ${endpoints[0]?.id}`);
    expect((await runSvc(["webhooks", "list"], { env })).stdout.trim()).toBe("No webhooks.");
  }, 60_000);

  it("fails with svc's reason on a private address, and on a wrong event type before sending anything", async () => {
    const refused = await runSvc(["webhooks", "add", "http://127.0.0.1:9/hook"], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("loopback or private address");
    const wrong = await runSvc(["webhooks", "add", "https://93.184.216.34/hook", "--event", "document.exploded"], { env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--event: not an event type: "document.exploded"');
    expect((await runSvc(["webhooks", "remove", "999999"], { env })).code).toBe(1);
  }, 60_000);
});
