import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "./post-webhook";
import { createWebhookSecret, verifyWebhookSignature } from "./sign-webhook";

const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let status = 200;
let hang = false;
const server = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    received.push({ headers: request.headers, body });
    if (hang) return;
    response.writeHead(status).end("ok");
  });
});
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("one try of a webhook delivery", () => {
  const secret = createWebhookSecret();
  const body = JSON.stringify({ id: "evt_7", type: "document.indexed" });
  const send = (url: string, allowPrivate: boolean, timeoutMs = 5_000) => postWebhook({ url, secret, eventId: "evt_7", body, timeoutMs, allowPrivate });

  it("posts the body signed in the Standard Webhooks scheme and answers the receiver's status", async () => {
    received.length = 0;
    status = 204;
    expect(await send(`http://127.0.0.1:${port}/hook`, true)).toEqual({ statusCode: 204, error: null });
    const [request] = received;
    expect(request?.body).toBe(body);
    expect(request?.headers["webhook-id"]).toBe("evt_7");
    expect(
      verifyWebhookSignature({
        secret,
        id: "evt_7",
        timestamp: String(request?.headers["webhook-timestamp"]),
        body: request?.body ?? "",
        signatureHeader: String(request?.headers["webhook-signature"]),
      }),
    ).toBe(true);
    status = 500;
    expect(await send(`http://127.0.0.1:${port}/hook`, true)).toEqual({ statusCode: 500, error: null });
  });

  it("never connects to a loopback address, as a literal or by name, unless private addresses are allowed", async () => {
    received.length = 0;
    expect((await send(`http://127.0.0.1:${port}/hook`, false)).error).toMatch(/^refused/);
    expect((await send(`http://[::ffff:127.0.0.1]:${port}/hook`, false)).error).toMatch(/^refused/);
    expect((await send(`http://localhost:${port}/hook`, false)).error).toMatch(/^refused/);
    expect(received).toEqual([]);
  });

  it("gives up on a receiver that does not answer within the timeout", async () => {
    hang = true;
    try {
      const started = Date.now();
      expect(await send(`http://127.0.0.1:${port}/hook`, true, 300)).toEqual({ statusCode: null, error: "timeout: no answer within 300 ms" });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      hang = false;
      server.closeAllConnections();
    }
  });
});
