import { AppError, type EventStreamMessage } from "@svc/core";
import { EventIdSchema, SvcEventSchema, toWire, validateBody, type EventsMissed } from "@svc/schema";
import { StreamedTextResponse } from "./document-list-response";

/** How long an EventSource waits before it reconnects (the `retry:` field). */
const RECONNECT_MS = 2_000;

/**
 * An event stream's answer (GET /svc-api/events): `text/event-stream`, each message written as it
 * comes. The production server's front sees the class and stops counting the request in flight once
 * the stream is open: the stream's own bound is SVC_MAX_EVENT_STREAMS (docs/decisions.md "Events").
 */
export class EventStreamResponse extends StreamedTextResponse {
  constructor(messages: AsyncIterable<EventStreamMessage>) {
    super(ssePieces(messages), {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      // nginx and its kin buffer answers unless told not to: a stream's messages must pass at once.
      "x-accel-buffering": "no",
    });
  }
}

/** Where a stream resumes: `Last-Event-ID` (sent by EventSource on reconnect) wins over `after`. */
export function resumePosition(request: Request, after: bigint | undefined): bigint | null {
  const header = request.headers.get("last-event-id");
  if (header === null || header.trim() === "") return after ?? null;
  const validated = validateBody(EventIdSchema, header.trim(), { locPrefix: ["header", "last-event-id"] });
  if (!validated.ok) throw new AppError("VALIDATION_FAILED", "Invalid Last-Event-ID", validated.body);
  return validated.data;
}

async function* ssePieces(messages: AsyncIterable<EventStreamMessage>): AsyncGenerator<string> {
  yield `retry: ${RECONNECT_MS}\n`;
  for await (const message of messages) yield formatMessage(message);
}

/** One SSE message (lines, then a blank line); a message without `data` moves the client's last id and dispatches nothing. */
function formatMessage(message: EventStreamMessage): string {
  switch (message.kind) {
    case "position":
      return `id: evt_${message.id}\n: ${message.comment}\n\n`;
    case "heartbeat":
      return ": heartbeat\n\n";
    case "missed": {
      const data: EventsMissed = {
        type: "events.missed",
        after: `evt_${message.after}`,
        detail: "Events after this id are no longer kept (older than the retention window); some may be missing. The stream goes on from the oldest kept.",
      };
      return `event: events.missed\ndata: ${JSON.stringify(data)}\n\n`;
    }
    case "event":
      return `id: evt_${message.id}\nevent: ${message.event.type}\ndata: ${JSON.stringify(toWire(SvcEventSchema, message.event))}\n\n`;
  }
}
