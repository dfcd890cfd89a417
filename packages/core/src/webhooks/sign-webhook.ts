import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Standard Webhooks signing (docs/decisions.md "Webhooks"): a secret is `whsec_` and the base64 of
 * 24 random bytes; the signature is `v1,` and the base64 HMAC-SHA256, keyed with those bytes, of
 * `<webhook-id>.<webhook-timestamp>.<body>`. Receivers verify it with any Standard Webhooks library.
 */
const SECRET_PREFIX = "whsec_";

export function createWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString("base64");
}

function secretKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), "base64") : Buffer.from(secret, "utf8");
}

export function signWebhook({ secret, id, timestamp, body }: { secret: string; id: string; timestamp: number; body: string }): string {
  return `v1,${createHmac("sha256", secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** The headers of one delivery of an event: sent again with the same id on every retry. */
export function webhookHeaders({ secret, id, body, now = new Date() }: { secret: string; id: string; body: string; now?: Date }): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook({ secret, id, timestamp, body }),
  };
}

/** Whether any `v1,` signature of the header matches (constant-time), the receiver's side of signWebhook. */
export function verifyWebhookSignature({
  secret,
  id,
  timestamp,
  body,
  signatureHeader,
}: {
  secret: string;
  id: string;
  timestamp: string;
  body: string;
  signatureHeader: string;
}): boolean {
  const expected = Buffer.from(signWebhook({ secret, id, timestamp: Number(timestamp), body }));
  return signatureHeader.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
