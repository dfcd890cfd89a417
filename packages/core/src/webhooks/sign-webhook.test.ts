import { describe, expect, it } from "vitest";
import { createWebhookSecret, signWebhook, verifyWebhookSignature, webhookHeaders } from "./sign-webhook";

describe("Standard Webhooks signing", () => {
  it("matches the specification's published test vector", () => {
    const signature = signWebhook({
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("signs a delivery's headers so that the secret verifies them and another secret or body does not", () => {
    const secret = createWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const body = JSON.stringify({ id: "evt_1", type: "document.indexed" });
    const headers = webhookHeaders({ secret, id: "evt_1", body, now: new Date("2026-12-07T00:00:00Z") });
    expect(headers).toMatchObject({ "webhook-id": "evt_1", "webhook-timestamp": "1796601600" });
    const check = (overrides: { secret?: string; body?: string }) =>
      verifyWebhookSignature({
        secret: overrides.secret ?? secret,
        id: headers["webhook-id"] as string,
        timestamp: headers["webhook-timestamp"] as string,
        body: overrides.body ?? body,
        signatureHeader: `v1,bm90IGl0 ${headers["webhook-signature"]}`,
      });
    expect(check({})).toBe(true);
    expect(check({ secret: createWebhookSecret() })).toBe(false);
    expect(check({ body: body.replace("indexed", "deleted") })).toBe(false);
  });
});
