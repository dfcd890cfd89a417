// The test collections of bench/relevance, read from the unmodified files in data/ (see its README):
// documents (id, title, body), queries (id, text) and judgments (query id → document id → gain).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dataDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "data");

const read = (collection, file) => readFileSync(path.join(dataDir, collection, file), "latin1").replaceAll("\r", "");
const collapse = (text) => text.replace(/\s+/g, " ").trim();

/**
 * Records of the SMART format both collections use: `.I id` starts a record, a line holding only `.X`
 * (one capital letter) starts field X, whose text runs to the next such line. Returns [{ id, fields }].
 */
function parseSmart(text) {
  const records = [];
  let field = null;
  for (const line of text.split("\n")) {
    const start = /^\.I\s+(\d+)\s*$/.exec(line);
    if (start) {
      records.push({ id: String(Number(start[1])), fields: {} });
      field = null;
      continue;
    }
    const marker = /^\.([A-Z])\s*$/.exec(line);
    if (marker) {
      field = marker[1];
      records.at(-1).fields[field] ??= "";
    } else if (field !== null) {
      records.at(-1).fields[field] += `${line}\n`;
    }
  }
  return records;
}

/** Documents as both engines index them: the title (`.T`) and the text (`.W`); authors and sources are left out. */
const toDocuments = (records) => records.map(({ id, fields }) => ({ id, title: collapse(fields.T ?? ""), body: collapse(fields.W ?? "") }));

/** Cranfield: codes 1 (complete answer) … 4 (minimum interest) become gains 4 … 1; -1 is not a grade, dropped. */
function cranfield() {
  const queries = parseSmart(read("cranfield", "cran.qry")).map(({ fields }, index) => ({
    // cranqrel numbers the questions 1..225 in file order; their `.I` numbers skip some.
    id: String(index + 1),
    text: collapse(fields.W ?? ""),
  }));
  const judgments = new Map();
  for (const line of read("cranfield", "cranqrel").split("\n")) {
    const [query, document, code] = line.trim().split(/\s+/).map(Number);
    if (!(code >= 1 && code <= 4)) continue;
    if (!judgments.has(String(query))) judgments.set(String(query), new Map());
    judgments.get(String(query)).set(String(document), 5 - code);
  }
  return {
    name: "cranfield",
    description: "Cranfield: 1,400 aerodynamics abstracts, 225 questions, graded judgments (gain 4 … 1 for Cleverdon's codes 1 … 4)",
    documents: toDocuments(parseSmart(read("cranfield", "cran.all.1400"))),
    queries,
    judgments,
  };
}

/** CISI: binary judgments (each CISI.REL line a relevant pair, gain 1); only the 76 judged queries are searched. */
function cisi() {
  const judgments = new Map();
  for (const line of read("cisi", "CISI.REL").split("\n")) {
    const [query, document] = line.trim().split(/\s+/);
    if (!document) continue;
    const key = String(Number(query));
    if (!judgments.has(key)) judgments.set(key, new Map());
    judgments.get(key).set(String(Number(document)), 1);
  }
  return {
    name: "cisi",
    description: "CISI: 1,460 information-science abstracts, 76 judged queries of 112, binary judgments",
    documents: toDocuments(parseSmart(read("cisi", "CISI.ALL"))),
    queries: parseSmart(read("cisi", "CISI.QRY")).map(({ id, fields }) => ({ id, text: collapse(fields.W ?? "") })),
    judgments,
  };
}

export const COLLECTIONS = { cranfield, cisi };

/** A collection by name, keeping only the queries that have at least one relevant document. */
export function loadCollection(name) {
  const build = COLLECTIONS[name];
  if (!build) throw new Error(`unknown collection ${name}: one of ${Object.keys(COLLECTIONS).join(", ")}`);
  const collection = build();
  collection.queries = collection.queries.filter((query) => (collection.judgments.get(query.id)?.size ?? 0) > 0);
  return collection;
}
