import { readFile } from "node:fs/promises";
import path from "node:path";

/** The file types `svc ingest FOLDER` reads; anything else in the folder is counted and left alone. */
export const INGESTIBLE_EXTENSIONS = new Set([".txt", ".md", ".markdown", ".html", ".htm", ".json", ".csv", ".pdf", ".docx"]);

export interface ExtractedText {
  text: string;
  /** From the file itself when it names one (an HTML <title>, a Markdown `# heading`). */
  title: string | null;
}

/**
 * The text of one file. PDF (unpdf, a serverless build of pdf.js), DOCX (mammoth) and HTML
 * (html-to-text) are loaded on first use only: most commands need none of them, and svc should start fast.
 */
export async function extractFileText(file: string): Promise<ExtractedText> {
  const extension = path.extname(file).toLowerCase();
  const bytes = await readFile(file);
  switch (extension) {
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
    case ".htm": {
      const html = bytes.toString("utf8");
      const { convert } = await import("html-to-text");
      const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
      return { text: convert(html, { wordwrap: false, selectors: [{ selector: "title", format: "skip" }] }), title: title || null };
    }
    case ".md":
    case ".markdown": {
      const text = bytes.toString("utf8");
      return { text, title: /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? null };
    }
    default:
      // txt, csv and json are indexed as the text they are.
      return { text: bytes.toString("utf8"), title: null };
  }
}
