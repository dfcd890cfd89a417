// A reader of GET /api/svc-api/events for the tests: the raw SSE messages as they arrive, parsed by
// the WHATWG rules here (not by @svc/client, which has its own test), with waits on what came.
import { waitFor } from "@svc/db/testing";
import { SvcEventSchema, type SvcEvent } from "@svc/schema";

export interface SseMessage {
  id: string | null;
  event: string | null;
  data: string | null;
  comments: string[];
}

export interface OpenedStream {
  status: number;
  headers: Headers;
  /** Every message so far, in order. */
  messages: SseMessage[];
  /** The events among them, parsed with the wire schema. */
  events(): SvcEvent[];
  /** Waits until `probe` finds something in the messages (30 s by default). */
  until<T>(what: string, probe: (stream: OpenedStream) => T | undefined, timeoutMs?: number): Promise<T>;
  /** Waits for the `: live` comment: every event final when it came has been passed. */
  live(): Promise<void>;
  /** The body of an answer other than 200 (a 4xx's JSON). */
  body: unknown;
  close(): void;
  closed: Promise<void>;
}

/**
 * Opens a stream with `fetch` at `url` (the whole URL), the bearer `key` and extra headers; resolves
 * once the status is known. The body is read in the background until close().
 */
export async function openStream(url: string, key: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...headers }, signal: controller.signal });
  const messages: SseMessage[] = [];
  const stream: OpenedStream = {
    status: response.status,
    headers: response.headers,
    messages,
    body: undefined,
    events: () => messages.filter((message) => message.data !== null && message.event !== "events.missed").map((message) => SvcEventSchema.parse(JSON.parse(message.data ?? ""))),
    until: (what, probe, timeoutMs = 30_000) => waitFor(what, () => probe(stream), { timeoutMs, describe: () => JSON.stringify(messages.slice(-20)) }),
    live: async () => {
      await stream.until("the stream to catch up", (opened) => (opened.messages.some((message) => message.comments.includes("live")) ? true : undefined));
    },
    close: () => controller.abort(),
    closed: Promise.resolve(),
  };
  if (response.status !== 200 || !response.body) {
    stream.body = await response.json().catch(() => null);
    return stream;
  }
  const reader = response.body.getReader();
  stream.closed = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    let current: SseMessage = { id: null, event: null, data: null, comments: [] };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === "") {
            if (current.id !== null || current.data !== null || current.comments.length > 0) messages.push(current);
            current = { id: null, event: null, data: null, comments: [] };
          } else if (line.startsWith(":")) current.comments.push(line.slice(1).trim());
          else {
            const colon = line.indexOf(":");
            const field = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, "");
            if (field === "id" || field === "event" || field === "data") current[field] = value;
          }
        }
      }
    } catch {
      // Closed by the test.
    }
  })();
  return stream;
}

/** The ids of the stream's messages that carry one, in order (events' and positions'). */
export function eventIds(stream: OpenedStream): string[] {
  return stream.events().map((event) => event.id);
}

/**
 * The events of a stream answered in-process (the dispatcher's Response), read until the `: live`
 * comment: every event final when the stream opened has been passed. The body is then cancelled.
 */
export async function eventsUntilLive(response: Response): Promise<SvcEvent[]> {
  if (!response.body) throw new Error(`no stream: ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 30_000;
  while (!/^: live$/m.test(text)) {
    if (Date.now() > deadline) throw new Error(`the stream never caught up:\n${text.slice(-2000)}`);
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended:\n${text.slice(-2000)}`);
    text += decoder.decode(value, { stream: true });
  }
  // Not awaited: the stream ends at its next step; nothing here waits for it.
  void reader.cancel().catch(() => undefined);
  return text
    .split("\n\n")
    .flatMap((message) => message.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => JSON.parse(line.slice("data: ".length)) as unknown)
    .filter((data) => (data as { type?: string }).type !== "events.missed")
    .map((data) => SvcEventSchema.parse(data));
}

/**
 * Waits until every event written so far is final (no transaction older than its own is running on
 * the PostgreSQL server), so that a stream opened now passes all of them before it says `: live`.
 */
export async function waitForFinalEvents(db: { $queryRawUnsafe<T>(query: string): Promise<T> }): Promise<void> {
  await waitFor("every event to be final", async () => {
    const [row] = await db.$queryRawUnsafe<{ final: boolean }[]>(
      `SELECT COALESCE(max(tx_id) < pg_snapshot_xmin(pg_current_snapshot()), true) AS final FROM svc_event`,
    );
    return row?.final ? true : undefined;
  });
}
