// The reference engine of bench/relevance: BM25 over the same documents in SQLite FTS5 (Node 24's
// built-in node:sqlite), the query's words OR-ed. It scores every matching document, so it is a
// yardstick for ranking, not a design for svc.
import { DatabaseSync } from "node:sqlite";

/** An in-memory FTS5 table of `documents` ({ id, title, body }); `search(query)` → ranked ids (10). */
export function createReferenceEngine(documents, stopWords) {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE VIRTUAL TABLE d USING fts5(id UNINDEXED, title, body, tokenize='porter unicode61')");
  const insert = db.prepare("INSERT INTO d (id, title, body) VALUES (?, ?, ?)");
  db.exec("BEGIN");
  for (const document of documents) insert.run(document.id, document.title, document.body);
  db.exec("COMMIT");
  const select = db.prepare("SELECT id FROM d WHERE d MATCH ? ORDER BY bm25(d) LIMIT 10");
  const count = db.prepare("SELECT count(*) AS n FROM d WHERE d MATCH ?");
  return {
    /** Documents holding the word (stemmed as indexed). */
    documentFrequency: (word) => count.get(`"${word.toLowerCase().replaceAll('"', "")}"`).n,
    /**
     * The query's words as unicode61 splits them (letters and digits), lower-cased, without the
     * stop words svc's `english` configuration ignores, each once, each quoted (no FTS5 syntax).
     */
    search(query) {
      const words = new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !stopWords.has(word)));
      if (words.size === 0) return [];
      return select.all([...words].map((word) => `"${word}"`).join(" OR ")).map((row) => row.id);
    },
    close: () => db.close(),
  };
}
