import { z } from "zod";
import { DocumentSourceSchema } from "./document-source";
import { pydanticErrors } from "./pydantic-errors";
import { pyDateTime, pyEnum, pyInt, pyList, pyModel, pyString, pydanticIssue } from "./pydantic-fields";

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 100;
/** Longest search query, in characters (code points): longer ones are refused before any search work. */
export const MAX_SEARCH_QUERY_LENGTH = 1000;
/** Most terms in a search query: each term is work for the index (a posting list to intersect). */
export const MAX_SEARCH_QUERY_TERMS = 64;
/** Most items in each list a search request may hold (a longer list is a 422 before any search work). */
export const MAX_SEARCH_FILTER_CC_PAIR_IDS = 1000;
export const MAX_SEARCH_FILTER_SOURCES = 100;
export const MAX_SEARCH_FILTER_TAGS = 100;
export const MAX_SEARCH_PRINCIPAL_GROUP_IDS = 1000;
/** Chunks shown per document in a search result. */
export const SEARCH_CHUNKS_PER_DOCUMENT = 3;

/** A metadata tag: matches a document whose metadata `key` is `value` or a list holding `value`. */
export const SearchTagSchema = pyModel("SearchTag", {
  key: pyString(),
  value: pyString(),
});
export type SearchTag = z.infer<typeof SearchTagSchema>;

/**
 * Narrows a search; every filter given must hold (within `sources`, `cc_pair_ids` and `tags`, any one
 * item matching is enough). The date bounds are inclusive.
 */
export const SearchFiltersSchema = pyModel("SearchFilters", {
  sources: pyList(pyEnum(DocumentSourceSchema), { maxLength: MAX_SEARCH_FILTER_SOURCES }).nullable().default(null),
  cc_pair_ids: pyList(pyInt(), { maxLength: MAX_SEARCH_FILTER_CC_PAIR_IDS }).nullable().default(null),
  tags: pyList(SearchTagSchema, { maxLength: MAX_SEARCH_FILTER_TAGS }).nullable().default(null),
  doc_updated_after: pyDateTime().nullable().default(null),
  doc_updated_before: pyDateTime().nullable().default(null),
});
export type SearchFilters = z.infer<typeof SearchFiltersSchema>;

/** The user an admin searches on behalf of: documents are filtered by what this user may see. */
export const SearchPrincipalSchema = pyModel("SearchPrincipal", {
  email: pyString().nullable().default(null),
  group_ids: pyList(pyString(), { maxLength: MAX_SEARCH_PRINCIPAL_GROUP_IDS }).default(() => []),
});
export type SearchPrincipal = z.infer<typeof SearchPrincipalSchema>;

/**
 * The terms of a query as search counts them for its limit: the words, whether bare, excluded (`-word`)
 * or inside a quoted phrase. Quotes and a lone `-` are syntax, not terms.
 */
export function countSearchQueryTerms(query: string): number {
  let terms = 0;
  for (const token of query.split(/[\s"]+/)) if (token !== "" && token !== "-") terms += 1;
  return terms;
}

/** `str` of 1–1,000 characters and at most 64 terms; too many terms is a `value_error`, as a pydantic
 * field validator raising `ValueError` would answer. */
const SearchQuerySchema = pyString({ minLength: 1, maxLength: MAX_SEARCH_QUERY_LENGTH }).superRefine((query, ctx) => {
  const terms = countSearchQueryTerms(query);
  if (terms <= MAX_SEARCH_QUERY_TERMS) return;
  const message = `a search query has at most ${MAX_SEARCH_QUERY_TERMS} terms, not ${terms}`;
  ctx.addIssue(pydanticIssue(pydanticErrors.valueError(message), query));
});

/**
 * How a query's bare words match: `any` (the default) finds chunks holding any of them, ranked by
 * BM25 (more of the words, and rarer ones, rank higher; a word the index has no posting for is
 * matched to the index's terms within one or two typos; words all common in the index are required
 * together); `all` finds only chunks holding every word.
 * Quoted phrases are required and `-exclusions` exclude in both.
 */
export const SearchMatchSchema = z.enum(["any", "all"]).meta({
  description:
    "`any` (default): a chunk holding any of the query's bare words matches, ranked by BM25 (more and rarer words rank higher; a misspelled word is matched to the index's nearest terms; two or more words that are all common in the index, each in at least 10 % of its chunks, must all match); `all`: every bare word must match. Quoted phrases are required and `-word` excludes in both.",
});
export type SearchMatch = z.infer<typeof SearchMatchSchema>;

/** Request body of POST /svc-api/search. */
export const SearchRequestSchema = pyModel("SearchRequest", {
  query: SearchQuerySchema,
  match: pyEnum(SearchMatchSchema).default("any"),
  limit: pyInt({ ge: 1, le: MAX_SEARCH_LIMIT }).default(DEFAULT_SEARCH_LIMIT),
  filters: SearchFiltersSchema.nullable().default(null),
  principal: SearchPrincipalSchema.nullable().default(null),
});
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

/** One matching chunk. `snippet` is HTML: the chunk text escaped, the matched words in `<mark>`. */
export const SearchChunkSchema = z.object({
  chunk_index: z.int(),
  snippet: z.string(),
  link: z.string().nullable(),
  image_file_id: z.string().nullable(),
  score: z.number(),
});
export type SearchChunk = z.infer<typeof SearchChunkSchema>;

/** One matching document: its score is its best chunk's; its best chunks, best first. */
export const SearchResultSchema = z.object({
  document_id: z.string(),
  semantic_identifier: z.string(),
  title: z.string().nullable(),
  source: DocumentSourceSchema,
  link: z.string().nullable(),
  score: z.number(),
  doc_updated_at: z.iso.datetime({ offset: true }),
  chunks: z.array(SearchChunkSchema),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;

/** Answer to POST /svc-api/search: the documents, best first. */
export const SearchResponseSchema = z.object({
  results: z.array(SearchResultSchema),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
