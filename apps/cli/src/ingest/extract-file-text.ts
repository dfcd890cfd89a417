import { readFile } from "node:fs/promises";
import path from "node:path";
import { gunzipSync } from "node:zlib";

/** The file types `svc ingest FOLDER` reads by their name; `.gz` of these, and files without an extension whose content is text, too. */
export const INGESTIBLE_EXTENSIONS = new Set([".txt", ".md", ".markdown", ".html", ".htm", ".json", ".csv", ".pdf", ".docx"]);

/** How much of a file without an extension is looked at to decide whether it is text. */
const SNIFF_BYTES = 8_192;

export interface ExtractedText {
  text: string;
  /** From the file itself when it names one (an HTML <title>, Markdown front matter's `title` or `# heading`). */
  title: string | null;
}

/**
 * The extension that says how to read `file`, in lower case: `.gz` is looked through (`notes.md.gz`
 * reads as `.md`); "" for none. A suffix with capitals that names no type read here is part of the
 * name, not a type (Debian's `README.Debian`, `changelog.Debian.gz`, `README.FIPS`): "" too.
 */
export function contentExtension(file: string): string {
  const name = path.basename(file);
  const extension = path.extname(name.toLowerCase().endsWith(".gz") ? name.slice(0, -3) : name);
  const lower = extension.toLowerCase();
  return extension === lower || INGESTIBLE_EXTENSIONS.has(lower) ? lower : "";
}

/**
 * Whether `svc ingest FOLDER` reads this file: an ingestible extension (also under `.gz`), or none and
 * content that is text (no NUL byte, valid UTF-8 in the first 8 KiB): README, NEWS, copyright.
 */
export async function isIngestible(file: string): Promise<boolean> {
  const extension = contentExtension(file);
  if (extension !== "") return INGESTIBLE_EXTENSIONS.has(extension);
  return looksLikeText(await readBytes(file).catch(() => null));
}

function looksLikeText(bytes: Buffer | null): boolean {
  if (bytes === null) return false;
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return false;
  // A multi-byte character cut at the end of the sample is not a fault: decode in streaming mode.
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** The file's bytes, decompressed when it is gzip. */
async function readBytes(file: string): Promise<Buffer> {
  const bytes = await readFile(file);
  return file.toLowerCase().endsWith(".gz") ? gunzipSync(bytes) : bytes;
}

/**
 * The text of one file. PDF (unpdf, a serverless build of pdf.js), DOCX (mammoth) and HTML
 * (Readability, linkedom, html-to-text) are loaded on first use only: most commands need none of them, and svc should start fast.
 */
export async function extractFileText(file: string): Promise<ExtractedText> {
  const bytes = await readBytes(file);
  switch (contentExtension(file)) {
    case ".pdf": {
      const { extractText, getDocumentProxy } = await import("unpdf");
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      const { text } = await extractText(pdf, { mergePages: true });
      return { text, title: null };
    }
    case ".docx": {
      const { default: mammoth } = await import("mammoth");
      return { text: (await mammoth.extractRawText({ buffer: bytes })).value, title: null };
    }
    case ".html":
    case ".htm":
      return htmlText(bytes.toString("utf8"));
    case ".md":
    case ".markdown":
      return markdownText(bytes.toString("utf8"));
    default:
      // txt, csv, json and extensionless text are indexed as the text they are.
      return { text: bytes.toString("utf8"), title: null };
  }
}

/** Parts of a page that are not its content: the site's navigation, banners and code. */
const HTML_CHROME = ["nav", "header", "footer", "aside", "script", "style", "noscript", "template", "title", "img"];

/**
 * Larger pages skip Readability, whose time grows faster than their size: on the 2-core test machine
 * ~0.2 s for a 40 KB page, 2–4 s for Node's 300–400 KB API pages, ~20 s for its 8 MB all.html.
 */
const READABILITY_MAX_BYTES = 256 * 1024;

/**
 * The page's main content as text: Readability (Firefox's reader view, on a linkedom DOM) finds it,
 * dropping navigation bars and links that are not `nav` elements (DocBook's and Texinfo's `Up`,
 * `Next`, `Home`); html-to-text turns it into text. A page too large for Readability, or where it
 * finds nothing, is read whole: its `<main>` or `<article>` when it has one, else `<body>`, without
 * the site's chrome.
 */
async function htmlText(html: string): Promise<ExtractedText> {
  const { convert } = await import("html-to-text");
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  const text = convert((await readableContent(html)) ?? html, {
    wordwrap: false,
    baseElements: { selectors: ["main", "article", "body"], returnDomByDefault: true },
    selectors: [
      ...HTML_CHROME.map((selector) => ({ selector, format: "skip" })),
      // Links read as their words; the target in brackets is noise in a search index.
      { selector: "a", options: { ignoreHref: true } },
    ],
  });
  return { text, title: title || null };
}

/** Readability's article (HTML), or null when the page is too large for it or it finds none. */
async function readableContent(html: string): Promise<string | null> {
  if (Buffer.byteLength(html) > READABILITY_MAX_BYTES) return null;
  const [{ Readability }, { parseHTML }] = await Promise.all([import("@mozilla/readability"), import("linkedom")]);
  // Both libraries' types name the DOM's, which this Node package's TypeScript does not load.
  const window: unknown = parseHTML(html);
  // No minimum length: a short page (an index of links) is still its own content.
  const article = new Readability((window as { document: never }).document, { charThreshold: 0 }).parse();
  return article?.content?.trim() ? article.content : null;
}

/** YAML front matter at the very top: `---`, lines, `---`. */
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** A Markdown file's text without its front matter; its title from the front matter's `title`, else the first `# heading`. */
async function markdownText(markdown: string): Promise<ExtractedText> {
  const front = FRONT_MATTER.exec(markdown);
  const text = front ? markdown.slice(front[0].length) : markdown;
  let title: string | null = null;
  if (front) {
    const { parse } = await import("yaml");
    let data: unknown;
    try {
      data = parse(front[1] ?? "");
    } catch {
      // Not YAML after all: the heading names it.
    }
    const value = (data as { title?: unknown } | null)?.title;
    if (typeof value === "string" && value.trim() !== "") title = value.trim();
  }
  return { text, title: title ?? /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? null };
}
