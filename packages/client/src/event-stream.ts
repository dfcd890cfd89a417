import { EventStreamDataSchema, type EventStreamData, type EventType } from "@svc/schema";
import { SvcApiError } from "./svc-api-error";

export interface EventStreamOptions {
  /** Resume after this event id (`evt_<n>`; `evt_0`: from the oldest event svc keeps). Without it the stream starts now. */
  after?: string;
  /** Only these event types. */
  types?: EventType[];
  /** Only events of these pairs. */
  ccPairIds?: number[];
  /** Stops the stream: the iteration ends. */
  signal?: AbortSignal;
  /** The wait before reconnecting after a dropped connection, doubled up to 30 s while it keeps failing; 1 s by default. */
  reconnectDelayMs?: number;
}

/** One message of the stream as read off the wire. */
interface SseMessage {
  id: string | null;
  event: string | null;
  data: string | null;
}

const MAX_RECONNECT_DELAY_MS = 30_000;
/** Statuses that mean "later" (overload, an outage, a proxy between): the stream reconnects. */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/**
 * GET /svc-api/events as an async iterable: each event (and the `events.missed` notice) parsed with
 * @svc/schema's zod models. A dropped connection, or an answer that says "later", is reconnected
 * with the last id seen as `Last-Event-ID`, so no event is lost and none comes twice. `lastEventId`
 * is where the stream stands (it moves past events the key does not see, too); `opened()` resolves
 * once svc holds the stream's position, after which every event that becomes final comes through.
 */
export class SvcEventStream implements AsyncIterable<EventStreamData> {
  /** The position to resume from: the last id svc sent (an event's, or the stream's own position). */
  lastEventId: string | null;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly send: (request: Request) => Promise<Response>;
  private readonly options: EventStreamOptions;
  private connection: Promise<ReadableStreamDefaultReader<Uint8Array>> | null = null;
  private iterating = false;

  constructor(baseUrl: string, apiKey: string, send: (request: Request) => Promise<Response>, options: EventStreamOptions = {}) {
    this.url = new URL(`${baseUrl.replace(/\/+$/, "")}/svc-api/events`);
    if (options.types?.length) this.url.searchParams.set("types", options.types.join(","));
    if (options.ccPairIds?.length) this.url.searchParams.set("cc_pair_id", options.ccPairIds.join(","));
    this.headers = { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" };
    this.send = send;
    this.options = options;
    this.lastEventId = options.after ?? null;
  }

  /** Connects (if not yet) and resolves once svc answered 200: the stream's position is fixed from then on. */
  async opened(): Promise<void> {
    this.connection ??= this.connect();
    try {
      await this.connection;
    } catch (error) {
      // Refused (429: every stream of the server taken) or unreachable: the next call tries again.
      this.connection = null;
      throw error;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<EventStreamData> {
    if (this.iterating) throw new Error("An event stream can be iterated once");
    this.iterating = true;
    const signal = this.options.signal;
    let failures = 0;
    while (!signal?.aborted) {
      let reader: ReadableStreamDefaultReader<Uint8Array>;
      try {
        reader = await (this.connection ??= this.connect());
      } catch (error) {
        this.connection = null;
        if (signal?.aborted) return;
        if (error instanceof SvcApiError && !RETRIED_STATUSES.has(error.status)) throw error;
        const delayMs = error instanceof SvcApiError ? (error.retryAfter ?? 1) * 1000 : undefined;
        await this.pause(delayMs ?? this.backoff(failures++), signal);
        continue;
      }
      const messages = readMessages(reader);
      try {
        for (;;) {
          let next: IteratorResult<SseMessage>;
          try {
            next = await messages.next();
          } catch {
            // The connection dropped (or was cut mid-message): reconnect from the last id.
            break;
          }
          if (next.done) break;
          failures = 0;
          const message = next.value;
          // Parsed before the id moves: a message svc's models refuse throws, and is not skipped on a resume.
          const data = message.data === null ? null : EventStreamDataSchema.parse(JSON.parse(message.data));
          if (message.id !== null) this.lastEventId = message.id;
          if (data !== null) yield data;
        }
      } finally {
        this.connection = null;
        await reader.cancel().catch(() => undefined);
      }
      if (!signal?.aborted) await this.pause(this.backoff(failures++), signal);
    }
  }

  private async connect(): Promise<ReadableStreamDefaultReader<Uint8Array>> {
    const headers: Record<string, string> = { ...this.headers };
    if (this.lastEventId !== null) headers["last-event-id"] = this.lastEventId;
    const request = new Request(this.url, { headers, ...(this.options.signal ? { signal: this.options.signal } : {}) });
    const response = await this.send(request);
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => "");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON (a proxy's page): kept as text.
      }
      throw SvcApiError.fromResponse(response, body);
    }
    return response.body.getReader();
  }

  private backoff(failures: number): number {
    return Math.min(MAX_RECONNECT_DELAY_MS, (this.options.reconnectDelayMs ?? 1_000) * 2 ** failures);
  }

  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
      signal?.addEventListener("abort", done);
    });
  }
}

/**
 * The messages of a `text/event-stream` body (the WHATWG rules): lines `field: value`, a comment
 * line starting with `:`, a blank line ending a message; `data` lines joined with newlines. A message
 * cut off by the end of the body is dropped, as EventSource drops it.
 */
async function* readMessages(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let message: SseMessage = { id: null, event: null, data: null };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (message.id !== null || message.data !== null) yield message;
        message = { id: null, event: null, data: null };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const raw = colon < 0 ? "" : line.slice(colon + 1);
      const value = raw.startsWith(" ") ? raw.slice(1) : raw;
      if (field === "id") message.id = value;
      else if (field === "event") message.event = value;
      else if (field === "data") message.data = message.data === null ? value : `${message.data}\n${value}`;
    }
  }
}
