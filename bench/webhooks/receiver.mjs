// The webhook receiver of bench/webhooks: a node:http server in the bench process that verifies each
// delivery's Standard Webhooks signature by itself (node:crypto, not svc's signer: docs/decisions.md
// "Webhooks") and records when each document's `document.indexed` first arrived, and how often.
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";

/** Standard Webhooks' tolerance for a delivery's timestamp against the receiver's clock. */
const TIMESTAMP_TOLERANCE_SECONDS = 300;

function validSignature(secret, headers, body) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures || !secret) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = Buffer.from(`v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`);
  return signatures.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * Starts a receiver on a free loopback port. `secret` is set once the endpoint is registered (svc makes
 * it). `down("503")` answers every delivery 503 until `up()`; `down("closed")` closes the port (open
 * connections cut) and `up()` listens on it again.
 */
export async function startReceiver() {
  const receiver = {
    secret: undefined,
    mode: "up",
    /**
     * document id → { first: performance.now() of the first valid `document.indexed`, sinceEvent: ms from the
     * event's `time` (svc's clock, the same machine's) to that arrival, deliveries }
     */
    indexed: new Map(),
    /** webhook-id → deliveries accepted (2xx) with it: more than one is a duplicate. */
    events: new Map(),
    byType: {},
    refused: 0,
    badSignatures: 0,
  };
  const server = http.createServer((request, response) => {
    const parts = [];
    request.on("data", (part) => parts.push(part));
    request.on("end", () => {
      const arrived = performance.now();
      if (receiver.mode !== "up") {
        receiver.refused += 1;
        response.writeHead(503).end();
        return;
      }
      const body = Buffer.concat(parts).toString("utf8");
      if (!validSignature(receiver.secret, request.headers, body)) {
        receiver.badSignatures += 1;
        response.writeHead(400).end();
        return;
      }
      const event = JSON.parse(body);
      const id = request.headers["webhook-id"];
      receiver.events.set(id, (receiver.events.get(id) ?? 0) + 1);
      receiver.byType[event.type] = (receiver.byType[event.type] ?? 0) + 1;
      if (event.type === "document.indexed") {
        const seen = receiver.indexed.get(event.document_id);
        if (seen) seen.deliveries += 1;
        else receiver.indexed.set(event.document_id, { first: arrived, sinceEvent: Date.now() - Date.parse(event.time), deliveries: 1 });
      }
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  receiver.url = `http://127.0.0.1:${port}/hook`;
  receiver.down = async (mode) => {
    receiver.mode = mode;
    if (mode === "closed") {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    }
  };
  receiver.up = async () => {
    if (receiver.mode === "closed") await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
    receiver.mode = "up";
  };
  receiver.close = async () => {
    if (!server.listening) return;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  };
  return receiver;
}
