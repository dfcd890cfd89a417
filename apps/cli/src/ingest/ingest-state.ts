import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

interface StateFile {
  version: 1;
  /** Per API root: document id → hash of the last body that svc accepted for it. */
  servers: Record<string, Record<string, string>>;
}

/**
 * What `svc ingest` sent and svc accepted, so that a rerun (after a crash, a Ctrl+C, a few failures)
 * sends only what is new or changed. Kept on this machine: asking the server would cost a request per
 * document, as much as sending it. It is a cache: `--force` ignores it, and deleting it is harmless.
 */
export class IngestState {
  private readonly file: string;
  private readonly state: StateFile;
  private readonly sent: Record<string, string>;
  private dirty = false;

  constructor(file: string, baseUrl: string) {
    this.file = file;
    this.state = readState(file);
    this.sent = this.state.servers[baseUrl] ??= {};
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
    if (parsed.version === 1 && typeof parsed.servers === "object" && parsed.servers !== null) return parsed as StateFile;
  } catch {
    // Missing or unreadable: start afresh (the worst case is sending unchanged documents again).
  }
  return { version: 1, servers: {} };
}
