import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { contentExtension, extractFileText, isIngestible } from "./extract-file-text";

/** Formats whose text is extracted: an empty extraction from a non-empty file means the text could not be found. */
const DOCUMENT_FORMATS = new Set([".pdf", ".docx", ".html", ".htm"]);

/** A file with no text in it: skipped with a note, not a failure (a rerun would fail on it again). */
export class EmptyFileError extends Error {
  constructor() {
    super("empty: no text in the file");
  }
}

/** One document to send: where it came from (for messages) and how to build its ingestion body. */
export interface IngestSource {
  label: string;
  load(): Promise<IngestionBody>;
}

/** A POST /svc-api/ingestion body as far as the CLI looks into it; the server validates the rest. */
export interface IngestionBody {
  document: { id?: string | null; semantic_identifier?: string; [field: string]: unknown };
  cc_pair_id?: number | null;
  [field: string]: unknown;
}

export interface IngestSources {
  /** How many documents, when known before reading them all (not for stdin). */
  total: number | null;
  /** Files in a folder that are not of an ingestible type, relative to it. */
  ignored: string[];
  items: Iterable<IngestSource> | AsyncIterable<IngestSource>;
}

/** `svc ingest PATH`: `-` is JSONL on stdin, a `.jsonl` file is JSONL, a folder is its files. */
export async function readIngestSources(
  target: string,
  { idPrefix, pair, linkPrefix }: { idPrefix: string; pair?: number; linkPrefix?: string },
): Promise<IngestSources> {
  if (target === "-") return { total: null, ignored: [], items: readJsonLines(process.stdin, pair) };
  const info = await stat(target).catch(() => null);
  if (!info) throw new Error(`No such file or folder: ${target}`);
  if (info.isDirectory()) {
    const files = await listFiles(target);
    const readable = await Promise.all(files.map((file) => isIngestible(file)));
    const ingestible = files.filter((_, index) => readable[index]);
    return {
      total: ingestible.length,
      ignored: files.filter((_, index) => !readable[index]).map((file) => relativeName(target, file)),
      items: ingestible.map((file) => fileSource(target, file, { idPrefix, pair, linkPrefix })),
    };
  }
  if (target.endsWith(".jsonl") || target.endsWith(".ndjson")) {
    return { total: await countLines(target), ignored: [], items: readJsonLines(createReadStream(target), pair) };
  }
  throw new Error(`svc ingest takes a folder, a .jsonl file or - (stdin); ${target} is none of them.`);
}

/** A path relative to the folder, with `/` whatever the platform. */
function relativeName(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}

function fileSource(root: string, file: string, options: { idPrefix: string; pair?: number; linkPrefix?: string }): IngestSource {
  const { idPrefix, pair, linkPrefix } = options;
  // Ids from paths relative to the folder: a rerun from elsewhere or on another machine upserts the same documents.
  const relative = relativeName(root, file);
  // Where a reader opens it: under --link-prefix (the folder as a web server serves it), else the file itself.
  const link = linkPrefix
    ? `${linkPrefix.replace(/\/+$/, "")}/${relative.split("/").map(encodeURIComponent).join("/")}`
    : pathToFileURL(path.resolve(file)).href;
  return {
    label: relative,
    async load() {
      const [{ text, title }, info] = await Promise.all([extractFileText(file), stat(file)]);
      // Nothing in the file is a note; a PDF or page whose text cannot be found (a scan) is a failure.
      if (text.trim() === "") throw DOCUMENT_FORMATS.has(contentExtension(file)) && info.size > 0 ? new Error("no text found in the file") : new EmptyFileError();
      return {
        document: {
          id: `${idPrefix}${relative}`,
          semantic_identifier: relative,
          title: title ?? path.basename(relative),
          source: "file",
          sections: [{ text, link }],
          metadata: { file_type: contentExtension(file).slice(1) || "txt" },
          doc_updated_at: info.mtime.toISOString(),
        },
        ...(pair === undefined ? {} : { cc_pair_id: pair }),
      };
    },
  };
}

async function* readJsonLines(input: Readable, pair: number | undefined): AsyncIterable<IngestSource> {
  let lineNumber = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lineNumber += 1;
    if (line.trim() === "") continue;
    const label = `line ${lineNumber}`;
    yield {
      label,
      load: () => {
        let body: unknown;
        try {
          body = JSON.parse(line);
        } catch {
          return Promise.reject(new Error("not valid JSON"));
        }
        if (typeof body !== "object" || body === null || typeof (body as { document?: unknown }).document !== "object") {
          return Promise.reject(new Error('not an ingestion body (an object with a "document")'));
        }
        const parsed = body as IngestionBody;
        return Promise.resolve(pair === undefined ? parsed : { ...parsed, cc_pair_id: pair });
      },
    };
  }
}

/** Every file below `folder`, sorted, skipping hidden files and folders (.git, the state file…). */
async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !path.relative(folder, file).split(path.sep).some((part) => part.startsWith(".")))
    .sort();
}

async function countLines(file: string): Promise<number> {
  let count = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line.trim() !== "") count += 1;
  return count;
}
