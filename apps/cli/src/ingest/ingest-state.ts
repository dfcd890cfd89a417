import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

interface StateFile {
  version: 2;
  /** Per svc instance id (GET /svc-api/instance): document id → hash of the last body that svc accepted for it. */
  instances: Record<string, Record<string, string>>;
  /** Per API root: the instance last seen behind it, to say so when another one answers there now. */
  urls: Record<string, string>;
}

/**
 * What `svc ingest` sent and svc accepted, so that a rerun (after a crash, a Ctrl+C, a few failures)
 * sends only what is new or changed. Kept on this machine: asking the server would cost a request per
 * document, as much as sending it. Keyed by the server's instance id, not its URL: a reset database
 * behind the same URL is another instance, and nothing recorded against the old one is skipped.
 * It is a cache: `--force` ignores it, and deleting it is harmless.
 */
export class IngestState {
  private readonly file: string;
  private readonly state: StateFile;
  private readonly sent: Record<string, string>;
  /** Set when the state held documents for this URL recorded against another instance. */
  readonly replacedInstance: { instanceId: string; documents: number } | null = null;
  private dirty = false;

  constructor(file: string, baseUrl: string, instanceId: string) {
    this.file = file;
    this.state = readState(file);
    const previous = this.state.urls[baseUrl];
    if (previous !== undefined && previous !== instanceId) {
      this.replacedInstance = { instanceId: previous, documents: Object.keys(this.state.instances[previous] ?? {}).length };
    }
    this.dirty = previous !== instanceId;
    this.state.urls[baseUrl] = instanceId;
    this.sent = this.state.instances[instanceId] ??= {};
  }

  /** Of a body as the JSON text sent. */
  static hash(json: string): string {
    return createHash("sha256").update(json).digest("base64url");
  }

  isStored(documentId: string, hash: string): boolean {
    return this.sent[documentId] === hash;
  }

  record(documentId: string, hash: string): void {
    this.sent[documentId] = hash;
    this.dirty = true;
  }

  /** Written whole to a temporary file and renamed over the old one: a crash never leaves half a file. */
  save(): void {
    if (!this.dirty) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.state));
    renameSync(temporary, this.file);
    this.dirty = false;
  }
}

function readState(file: string): StateFile {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<StateFile>;
    if (parsed.version === 2 && typeof parsed.instances === "object" && parsed.instances !== null && typeof parsed.urls === "object" && parsed.urls !== null) {
      return parsed as StateFile;
    }
  } catch {
    // Missing or unreadable: start afresh (the worst case is sending unchanged documents again).
  }
  // An older state (keyed by URL only) cannot say which instance it was for: it is not trusted.
  return { version: 2, instances: {}, urls: {} };
}
