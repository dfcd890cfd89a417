import { BooleanQuery, MatchQuery, Occur, Operator, PhraseQuery, type FullTextQuery } from "@lancedb/lancedb";
import { buildSearchFilter, type SearchAccess, type SearchFilter } from "./build-search-filter";
import type { GenerationTable } from "./generation-table";
import { findPhrases, memoNormalize, phraseWords } from "./find-phrase";
import { highlightSnippet, highlightTerms } from "./highlight-snippet";
import { parseSearchQuery, type ParsedSearchQuery } from "./parse-search-query";
import { SearchIndexError } from "./search-index-error";
import { sqlIn, sqlString } from "./sql-literal";

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

/**
 * A search as LanceDB queries. `main` ranks; `everyWord`, when set, checks on the candidates that each
 * has every word; `exact` is `main` with one Must clause per word, used instead once the check fails.
 */
interface ChunkQuery {
  main: FullTextQuery;
  everyWord: FullTextQuery | null;
  exact: FullTextQuery;
  /** The positive words as highlighting normalizes them (see topChunks). */
  words: ReadonlySet<string>;
  /** For a query with phrases, the phrase-free query whose ranking a candidate pass reads (see topByPhraseCandidates). */
  phraseCandidates: PhraseCandidates | null;
}

/**
 * A query of phrases only (no bare word, no word twice) as a candidate pass reads it (see
 * topByPhraseCandidates): `query` is `main` without its phrase clauses, and `phrases` are the phrases'
 * words as findPhrases compares them. LanceDB 0.39 sums the scores of a BooleanQuery's Must clauses
 * and scores a PhraseQuery as the BM25 sum of its words, so `main` scores a row holding the phrases
 * SCORE_SCALE times what `query` does: both rank those rows the same (pinned by "ranks a phrase query
 * exactly" in the tests, which compares the two paths' scores).
 */
interface PhraseCandidates {
  query: FullTextQuery;
  phrases: string[][];
}
const SCORE_SCALE = 2;

/**
 * The parsed query as LanceDB full-text queries, or null when it has nothing to match.
 * Three facts of LanceDB 0.31 shaped it (seen in this package's tests; 0.39 was seen to fix the simple cases, the guards stay):
 *  - a BooleanQuery scores with its first clause only, so the first clause is one MatchQuery of every
 *    positive word (phrase words included) with AND: its BM25 sum is the score; phrases and
 *    exclusions follow as clauses (0.39 adds the scores of all Must clauses, so there a phrase's words
 *    count twice in the score);
 *  - that AND is not exact: rows not yet merged into the FTS index are searched by a scan that
 *    ignores it, and on merged rows a word the part of the index holding the row has no posting for
 *    is dropped from the query instead of failing it (each merge adds a part for the rows it merges,
 *    so a chunk merged on its own with two of twenty query words matched them all);
 *  - one Must clause per word (`exact`) is exact on both, but makes every common word's postings a
 *    full evaluation. So the fast query runs first and `everyWord` (those Must clauses alone) checks
 *    its candidates, restricted to their ids: while no candidate fails, its ranking is exact (a row
 *    with every word scores the same in both); once one fails, the search switches to `exact`.
 */
function toChunkQuery(parsed: ParsedSearchQuery, stem: (word: string) => string): ChunkQuery | null {
  const phraseWords = parsed.phrases.flatMap((phrase) => phrase.split(" "));
  const positive = [...parsed.words, ...phraseWords];
  if (positive.length === 0) return null;
  const scored = new MatchQuery(positive.join(" "), "text", { operator: Operator.And });
  const exclusions: [Occur, FullTextQuery][] = [
    ...parsed.excludedWords.map((word): [Occur, FullTextQuery] => [Occur.MustNot, new MatchQuery(word, "text")]),
    ...parsed.excludedPhrases.map((phrase): [Occur, FullTextQuery] => [Occur.MustNot, new PhraseQuery(phrase, "text")]),
  ];
  const clauses: [Occur, FullTextQuery][] = [
    ...parsed.phrases.map((phrase): [Occur, FullTextQuery] => [Occur.Must, new PhraseQuery(phrase, "text")]),
    ...exclusions,
  ];
  const eachWord = positive.map((word): [Occur, FullTextQuery] => [Occur.Must, new MatchQuery(word, "text", { operator: Operator.And })]);
  return {
    main: clauses.length === 0 ? scored : new BooleanQuery([[Occur.Must, scored], ...clauses]),
    everyWord: positive.length > 1 ? new BooleanQuery(eachWord) : null,
    exact: new BooleanQuery([[Occur.Must, scored], ...eachWord, ...clauses]),
    words: highlightTerms(positive, stem),
    phraseCandidates: phraseCandidatesOf(parsed, scored, exclusions, stem),
  };
}

/** The candidate pass of a query with phrases, or null when it has none (see PhraseCandidates). */
function phraseCandidatesOf(
  parsed: ParsedSearchQuery,
  scored: FullTextQuery,
  exclusions: [Occur, FullTextQuery][],
  stem: (word: string) => string,
): PhraseCandidates | null {
  if (parsed.phrases.length === 0 || parsed.words.length > 0) return null;
  const phrases = phraseWords(parsed.phrases, stem);
  const words = phrases?.flat() ?? [];
  if (phrases === null || new Set(words).size !== words.length) return null;
  return { query: exclusions.length === 0 ? scored : new BooleanQuery([[Occur.Must, scored], ...exclusions]), phrases };
}

/**
 * The where-clause (access rule and filters) is a prefilter: LanceDB answers it from the table's scalar
 * indexes (a bitmap per value, combined) before the top-k cut, which at a million chunks costs a few
 * milliseconds over no filter (bench/RESULTS.md). Without those indexes it read the clause's columns
 * of every row (+100–300 ms), which is why an earlier version post-filtered the unfiltered ranking
 * first; a table made then gets the indexes at its next optimize.
 */
async function runChunkQuery(
  generation: GenerationTable,
  query: FullTextQuery,
  where: string | null,
  limit: number,
  budget: QueryBudget,
  columns: readonly string[] = COLUMNS,
): Promise<ChunkMatch[]> {
  let builder = generation.table.query().fullTextSearch(query).select([...columns]).limit(limit);
  if (where !== null) builder = builder.where(where);
  return (await budget.run((options) => builder.toArray(options))) as ChunkMatch[];
}

/** Candidates a phrase query ranks per chunk of its page (see topByPhraseCandidates). */
const PHRASE_WIDENING = 16;
/** What the candidate pass reads of each candidate; the kept ones' other columns are read after. */
const CANDIDATE_COLUMNS = ["chunk_id", "text", "_score"];

/**
 * The best `limit` chunks of a query of phrases, from a bounded candidate pass: the top `limit ×
 * PHRASE_WIDENING` of its phrase-free form (one AND of the words: no positions read), kept when their
 * own text holds the phrases (findPhrases), then the kept rows' other columns by chunk id. The kept
 * rows, in order, are the exact ranking when at least `limit` were kept or the candidates were all
 * there is: every row holding the phrases matches the phrase-free form, ranked the same
 * (PhraseCandidates). Null when that does not settle it (too few kept, or a candidate findPhrases
 * cannot decide): the caller runs `main`. Why: LanceDB evaluates a phrase on every row holding its
 * words, also under a where-clause on chunk ids, so a phrase of two common words costs positions on
 * a few hundred thousand rows in `main` (bench/RESULTS.md).
 */
async function topByPhraseCandidates(
  generation: GenerationTable,
  query: ChunkQuery,
  where: string | null,
  limit: number,
  budget: QueryBudget,
): Promise<ChunkMatch[] | null> {
  if (query.phraseCandidates === null || query.main === query.exact) return null;
  const widened = limit * PHRASE_WIDENING;
  const candidates = await runChunkQuery(generation, query.phraseCandidates.query, where, widened, budget, CANDIDATE_COLUMNS);
  const normalize = memoNormalize(generation.language.stem);
  const kept: ChunkMatch[] = [];
  for (const row of candidates) {
    const holds = findPhrases(row.text, query.phraseCandidates.phrases, normalize);
    if (holds === null) return null;
    if (holds) kept.push(row);
    if (kept.length === limit) break;
  }
  if (kept.length < limit && candidates.length === widened) return null;
  if (kept.length === 0) return [];
  const lookup = generation.table
    .query()
    .where(sqlIn("chunk_id", kept.map((row) => sqlString(row.chunk_id))))
    .select(COLUMNS.filter((column) => column !== "_score"))
    .limit(kept.length);
  const rows = new Map(((await budget.run((options) => lookup.toArray(options))) as ChunkMatch[]).map((row) => [row.chunk_id, row]));
  // A row deleted between the two reads is left out, as a search a moment later would leave it out.
  return kept.flatMap((row) => {
    const full = rows.get(row.chunk_id);
    return full === undefined ? [] : [{ ...full, _score: row._score * SCORE_SCALE }];
  });
}

/**
 * The best `limit` chunks passing `where`, best first, and whether fewer than `limit` matched (no
 * more to fetch). When a candidate of the fast query lacks a word, `query` switches to its exact form
 * for this and every later call (see toChunkQuery): one check per call, bounded by `limit`. The
 * candidates' own text is read first: when each holds every word as highlighting sees them (the
 * usual case), the check is skipped; only a doubt asks the index, whose tokenizer decides.
 */
async function topChunks(
  generation: GenerationTable,
  query: ChunkQuery,
  where: string | null,
  limit: number,
  budget: QueryBudget,
): Promise<{ rows: ChunkMatch[]; exhausted: boolean }> {
  let rows =
    (await topByPhraseCandidates(generation, query, where, limit, budget)) ??
    (await runChunkQuery(generation, query.main, where, limit, budget));
  const stem = generation.language.stem;
  const doubtful = rows.some((row) => {
    const held = highlightTerms([row.text], stem);
    return [...query.words].some((word) => !held.has(word));
  });
  if (query.everyWord !== null && doubtful) {
    const check = generation.table
      .query()
      .fullTextSearch(query.everyWord)
      .where(sqlIn("chunk_id", rows.map((row) => sqlString(row.chunk_id))))
      .select(["chunk_id", "_score"])
      .limit(rows.length);
    const matching = (await budget.run((options) => check.toArray(options))) as { chunk_id: string }[];
    if (matching.length < rows.length) {
      query.main = query.exact;
      query.everyWord = null;
      rows = await runChunkQuery(generation, query.main, where, limit, budget);
    }
  }
  // Ties in score are ordered by document and chunk, so a page is the same from one call to the next.
  rows.sort((a, b) => b._score - a._score || a.document_id.localeCompare(b.document_id) || a.chunk_index - b.chunk_index);
  return { rows, exhausted: rows.length < limit };
}

/**
 * The query without the language's stop words among its bare words (PostgreSQL's dictionaries
 * dropped them: "the and of" matched nothing, "the quokka" matched as "quokka"). Phrases keep theirs.
 */
function withoutStopWords(parsed: ParsedSearchQuery, stopWords: ReadonlySet<string>): ParsedSearchQuery {
  const kept = (word: string) => !stopWords.has(word.toLowerCase());
  return { ...parsed, words: parsed.words.filter(kept), excludedWords: parsed.excludedWords.filter(kept) };
}

/**
 * The time a search may take and the signal of its caller. Every LanceDB query runs with the time
 * left as its own timeout (LanceDB stops it there), and the signal is checked before each one: a
 * query already running cannot be stopped from JavaScript, so an abort takes effect at the next step.
 */
class QueryBudget {
  constructor(
    private readonly deadline: number | null,
    private readonly signal: AbortSignal | null,
  ) {}

  check(): void {
    if (this.signal?.aborted === true) throw new SearchIndexError("ABORTED", "The search was cancelled.");
    if (this.deadline !== null && Date.now() >= this.deadline) throw new SearchIndexError("TIMEOUT", "The search took too long.");
  }

  async run<T>(query: (options: { timeoutMs?: number }) => Promise<T>): Promise<T> {
    this.check();
    try {
      return await query(this.deadline === null ? {} : { timeoutMs: Math.max(1, this.deadline - Date.now()) });
    } catch (error) {
      // LanceDB reports its own timeout as a plain error: past the deadline, that is what it was.
      this.check();
      throw error;
    }
  }
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
 * index applies before the top-k cut (so a restricted caller's page is as full as the visible
 * matches allow), documents ranked by their best chunk, each with its best CHUNKS_PER_DOCUMENT
 * chunks. The top chunks are fetched in widening rounds until `limit` documents are among them (or
 * no more chunks match): the first `limit` distinct documents of the chunk ranking are exactly the
 * top `limit` documents. Documents whose other chunks were cut off get them in one second query.
 *
 * `admit`, when given, is asked once about each candidate document and drops those it does not
 * return (the caller's system of record may know of a deletion the index has not applied yet);
 * dropped documents widen the fetch like any other shortfall, so they never shorten a page while
 * more matches exist. `deadline` (epoch ms) and `signal` bound the work (TIMEOUT, ABORTED).
 */
export async function searchDocuments({
  generation,
  query,
  limit,
  access,
  filter = null,
  admit,
  deadline = null,
  signal = null,
}: {
  generation: GenerationTable;
  query: string;
  limit: number;
  access: SearchAccess;
  filter?: SearchFilter | null;
  admit?: (documentIds: string[]) => Promise<ReadonlySet<string>>;
  deadline?: number | null;
  signal?: AbortSignal | null;
}): Promise<SearchHit[]> {
  const budget = new QueryBudget(deadline, signal);
  const parsed = withoutStopWords(parseSearchQuery(query), generation.language.stopWords);
  const chunkQuery = toChunkQuery(parsed, generation.language.stem);
  if (chunkQuery === null || limit < 1) return [];
  const where = buildSearchFilter(access, filter);

  const verdicts = new Map<string, boolean>();
  const admitted = async (rows: ChunkMatch[]): Promise<Map<string, ChunkMatch[]>> => {
    const documents = groupByDocument(rows);
    const unknown = [...documents.keys()].filter((id) => !verdicts.has(id));
    if (admit !== undefined && unknown.length > 0) {
      budget.check();
      const kept = await admit(unknown);
      for (const id of unknown) verdicts.set(id, kept.has(id));
    }
    for (const id of documents.keys()) if (verdicts.get(id) === false) documents.delete(id);
    return documents;
  };

  let fetch = limit * CHUNKS_PER_DOCUMENT;
  let top = await topChunks(generation, chunkQuery, where, fetch, budget);
  let found = await admitted(top.rows);
  while (!top.exhausted && found.size < limit) {
    fetch *= 4;
    top = await topChunks(generation, chunkQuery, where, fetch, budget);
    found = await admitted(top.rows);
  }
  const complete = top.exhausted;
  const documents = [...found].slice(0, limit);

  const short = complete ? [] : documents.filter(([, chunks]) => chunks.length < CHUNKS_PER_DOCUMENT).map(([id]) => id);
  if (short.length > 0) {
    // The chunks already ranked keep their place and score; one query over these documents alone only
    // adds the ones below the cut. Access and filters are document-level (every chunk of a document
    // carries the same values), so these documents passed them already and the query needs neither.
    // Its limit bounds the work: a document with more matching chunks than that may show fewer than three.
    const own = groupByDocument(
      (await topChunks(generation, chunkQuery, sqlIn("document_id", short.map(sqlString)), short.length * CHUNKS_PER_DOCUMENT * 4, budget)).rows,
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
