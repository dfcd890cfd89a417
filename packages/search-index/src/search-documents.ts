import { BooleanQuery, MatchQuery, Occur, Operator, PhraseQuery, type FullTextQuery } from "@lancedb/lancedb";
import { buildSearchFilter, type SearchAccess, type SearchFilter } from "./build-search-filter";
import type { GenerationTable } from "./generation-table";
import { highlightSnippet, highlightTerms } from "./highlight-snippet";
import { parseSearchQuery, type ParsedSearchQuery } from "./parse-search-query";
import { sqlIn, sqlString } from "./sql-literal";

/** The FTS index LanceDB names after its column (createGenerationTable builds it on `text`). */
const FTS_INDEX_NAME = "text_idx";

/** Chunks shown per document, best first. */
export const CHUNKS_PER_DOCUMENT = 3;

export interface SearchHitChunk {
  chunkIndex: number;
  /** HTML: the chunk's text escaped, matched words in `<mark>`. */
  snippet: string;
  link: string | null;
  imageFileId: string | null;
  /** The chunk's BM25 score (higher is better). */
  score: number;
}

export interface SearchHit {
  documentId: string;
  semanticIdentifier: string;
  title: string | null;
  source: string;
  link: string | null;
  /** The best chunk's score. */
  score: number;
  docUpdatedAt: Date;
  chunks: SearchHitChunk[];
}

interface ChunkMatch {
  chunk_id: string;
  document_id: string;
  chunk_index: number;
  text: string;
  semantic_identifier: string;
  title: string | null;
  source: string;
  document_link: string | null;
  link: string | null;
  image_file_id: string | null;
  doc_updated_at: Date | number;
  _score: number;
}

const COLUMNS = [
  "chunk_id",
  "document_id",
  "chunk_index",
  "text",
  "semantic_identifier",
  "title",
  "source",
  "document_link",
  "link",
  "image_file_id",
  "doc_updated_at",
  "_score",
];

/** A search as LanceDB queries: `main` ranks; `everyWord`, when set, checks AND on candidates. */
interface ChunkQuery {
  main: FullTextQuery;
  everyWord: FullTextQuery | null;
}

/**
 * The parsed query as LanceDB full-text queries, or null when it has nothing to match.
 * Two facts of LanceDB 0.31 shape it (both seen in this package's tests):
 *  - a BooleanQuery scores with its first clause only, so the first clause is one MatchQuery of every
 *    positive word (phrase words included) with AND: its BM25 sum is the score; phrases and
 *    exclusions follow as clauses;
 *  - rows not yet merged into the FTS index are searched by a scan that ignores AND. While there are
 *    such rows (`hasUnmergedRows`), the candidates are checked with `everyWord` (one Must clause per
 *    word, the index's own tokenizer) restricted to their ids: cheaper than adding those clauses to
 *    the main query, which makes every common word's postings a full evaluation.
 */
function toChunkQuery(parsed: ParsedSearchQuery, hasUnmergedRows: boolean): ChunkQuery | null {
  const phraseWords = parsed.phrases.flatMap((phrase) => phrase.split(" "));
  const positive = [...parsed.words, ...phraseWords];
  if (positive.length === 0) return null;
  const scored = new MatchQuery(positive.join(" "), "text", { operator: Operator.And });
  const clauses: [Occur, FullTextQuery][] = [
    ...parsed.phrases.map((phrase): [Occur, FullTextQuery] => [Occur.Must, new PhraseQuery(phrase, "text")]),
    ...parsed.excludedWords.map((word): [Occur, FullTextQuery] => [Occur.MustNot, new MatchQuery(word, "text")]),
    ...parsed.excludedPhrases.map((phrase): [Occur, FullTextQuery] => [Occur.MustNot, new PhraseQuery(phrase, "text")]),
  ];
  return {
    main: clauses.length === 0 ? scored : new BooleanQuery([[Occur.Must, scored], ...clauses]),
    everyWord:
      hasUnmergedRows && positive.length > 1
        ? new BooleanQuery(positive.map((word): [Occur, FullTextQuery] => [Occur.Must, new MatchQuery(word, "text", { operator: Operator.And })]))
        : null,
  };
}

/**
 * The best `limit` chunks passing `where`, best first, and whether fewer than `limit` matched (no
 * more to fetch). Candidates failing the AND check are dropped after the count, so a caller that
 * needs more widens the fetch.
 */
async function topChunks(
  generation: GenerationTable,
  query: ChunkQuery,
  where: string | null,
  limit: number,
): Promise<{ rows: ChunkMatch[]; exhausted: boolean }> {
  let builder = generation.table.query().fullTextSearch(query.main).select(COLUMNS).limit(limit);
  if (where !== null) builder = builder.where(where);
  let rows = (await builder.toArray()) as ChunkMatch[];
  const exhausted = rows.length < limit;
  if (query.everyWord !== null && rows.length > 0) {
    const matching = (await generation.table
      .query()
      .fullTextSearch(query.everyWord)
      .where(sqlIn("chunk_id", rows.map((row) => sqlString(row.chunk_id))))
      .select(["chunk_id", "_score"])
      .limit(rows.length)
      .toArray()) as { chunk_id: string }[];
    const kept = new Set(matching.map((row) => row.chunk_id));
    rows = rows.filter((row) => kept.has(row.chunk_id));
  }
  // Ties in score are ordered by document and chunk, so a page is the same from one call to the next.
  rows.sort((a, b) => b._score - a._score || a.document_id.localeCompare(b.document_id) || a.chunk_index - b.chunk_index);
  return { rows, exhausted };
}

function groupByDocument(rows: ChunkMatch[]): Map<string, ChunkMatch[]> {
  const documents = new Map<string, ChunkMatch[]>();
  for (const row of rows) {
    const chunks = documents.get(row.document_id);
    if (chunks === undefined) documents.set(row.document_id, [row]);
    else chunks.push(row);
  }
  return documents;
}

/**
 * Exact BM25 top-k over a generation's chunks, as documents: `query` in the websearch syntax (all
 * words must match, `"phrases"`, `-exclusions`), the access rule and filters as a where-clause the
 * index applies before its top-k cut (so a restricted caller's page is as full as the visible
 * matches allow), documents ranked by their best chunk, each with its best CHUNKS_PER_DOCUMENT
 * chunks. The top chunks are fetched in widening rounds until `limit` documents are among them (or
 * no more chunks match): the first `limit` distinct documents of the chunk ranking are exactly the
 * top `limit` documents. Documents whose other chunks were cut off get them in one second query.
 */
export async function searchDocuments({
  generation,
  query,
  limit,
  access,
  filter = null,
}: {
  generation: GenerationTable;
  query: string;
  limit: number;
  access: SearchAccess;
  filter?: SearchFilter | null;
}): Promise<SearchHit[]> {
  const parsed = parseSearchQuery(query);
  const unmerged = (await generation.table.indexStats(FTS_INDEX_NAME))?.numUnindexedRows ?? 0;
  const chunkQuery = toChunkQuery(parsed, unmerged > 0);
  if (chunkQuery === null || limit < 1) return [];
  const where = buildSearchFilter(access, filter);

  let fetch = limit * CHUNKS_PER_DOCUMENT;
  let top = await topChunks(generation, chunkQuery, where, fetch);
  while (!top.exhausted && groupByDocument(top.rows).size < limit) {
    // Only unmerged rows can fail the AND check, so a fetch larger by their number makes up for any
    // that were dropped: a query whose candidates all fail (no chunk has every word) ends in one more round.
    fetch = Math.max(fetch * 4, chunkQuery.everyWord === null ? 0 : fetch + unmerged);
    top = await topChunks(generation, chunkQuery, where, fetch);
  }
  const complete = top.exhausted;
  const documents = [...groupByDocument(top.rows)].slice(0, limit);

  const short = complete ? [] : documents.filter(([, chunks]) => chunks.length < CHUNKS_PER_DOCUMENT).map(([id]) => id);
  if (short.length > 0) {
    // The chunks already ranked keep their place and score; one query over these documents alone only
    // adds the ones below the cut. Access and filters are document-level (every chunk of a document
    // carries the same values), so these documents passed them already and the query needs neither.
    // Its limit bounds the work: a document with more matching chunks than that may show fewer than three.
    const own = groupByDocument(
      (await topChunks(generation, chunkQuery, sqlIn("document_id", short.map(sqlString)), short.length * CHUNKS_PER_DOCUMENT * 4)).rows,
    );
    for (const entry of documents) {
      const known = new Set(entry[1].map((chunk) => chunk.chunk_index));
      entry[1] = [...entry[1], ...(own.get(entry[0]) ?? []).filter((chunk) => !known.has(chunk.chunk_index))];
    }
  }

  const terms = highlightTerms([...parsed.words, ...parsed.phrases], generation.language.stem);
  return documents.map(([documentId, chunks]) => {
    const best = chunks.slice(0, CHUNKS_PER_DOCUMENT);
    const first = best[0] as ChunkMatch;
    return {
      documentId,
      semanticIdentifier: first.semantic_identifier,
      title: first.title,
      source: first.source,
      link: first.document_link,
      score: first._score,
      docUpdatedAt: new Date(first.doc_updated_at),
      chunks: best.map((chunk) => ({
        chunkIndex: chunk.chunk_index,
        snippet: highlightSnippet(chunk.text, terms, generation.language.stem),
        link: chunk.link,
        imageFileId: chunk.image_file_id,
        score: chunk._score,
      })),
    };
  });
}
