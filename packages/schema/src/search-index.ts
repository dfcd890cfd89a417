import { z } from "zod";
import { pyInt, pyModel, pyString } from "./pydantic-fields";

/** The chunk size of the index when nothing else was asked for (and of generation 1). */
export const DEFAULT_CHUNK_TOKEN_LIMIT = 512;
/** Bounds of a rebuild's chunk size: below the chunker's 128-token content floor chunks would overflow
 * their limit; above 8,192 a chunk is no longer a passage. */
export const MIN_CHUNK_TOKEN_LIMIT = 128;
export const MAX_CHUNK_TOKEN_LIMIT = 8192;

/** Where a generation of the search index stands (the database enum IndexGenerationStatus). */
export const IndexGenerationStatusSchema = z.enum(["building", "current", "retired", "canceled"]);
export type IndexGenerationStatus = z.infer<typeof IndexGenerationStatusSchema>;

/**
 * Body of POST /manage/admin/search-index/rebuild (optional; an empty body keeps the current
 * generation's settings). `text_search_config` names the search index's language: `simple` or a
 * stemming language (`english`, `german`, …); another name is refused with 422 when the rebuild is
 * asked for (packages/search-index, text-search-language.ts).
 */
export const IndexRebuildRequestSchema = pyModel("IndexRebuildRequest", {
  chunk_token_limit: pyInt({ ge: MIN_CHUNK_TOKEN_LIMIT, le: MAX_CHUNK_TOKEN_LIMIT }).nullable().default(null),
  // 63 characters: PostgreSQL's longest identifier.
  text_search_config: pyString({ minLength: 1, maxLength: 63 }).nullable().default(null),
});
export type IndexRebuildRequest = z.infer<typeof IndexRebuildRequestSchema>;

/** The settings a generation was built with. */
export const IndexGenerationSettingsSchema = z.object({
  generation_id: z.int(),
  chunk_token_limit: z.int(),
  text_search_config: z.string(),
});
export type IndexGenerationSettings = z.infer<typeof IndexGenerationSettingsSchema>;

/** A rebuild, running or finished: its generation, settings and progress. */
export const IndexRebuildProgressSchema = IndexGenerationSettingsSchema.extend({
  status: IndexGenerationStatusSchema,
  /** Documents with an indexed version when the rebuild started (exact once it has finished). */
  docs_total: z.int(),
  docs_done: z.int(),
  docs_failed: z.int(),
  created_at: z.iso.datetime({ offset: true }),
  /** When the rebuild job first ran; null while it waits in the queue. */
  started_at: z.iso.datetime({ offset: true }).nullable(),
  /** When the generation became current, or the rebuild was canceled. */
  completed_at: z.iso.datetime({ offset: true }).nullable(),
});
export type IndexRebuildProgress = z.infer<typeof IndexRebuildProgressSchema>;

/**
 * GET (and the answer to POST and DELETE) /manage/admin/search-index/rebuild: the generation search
 * reads, the rebuild in progress (null when idle), and the last rebuild that ended.
 */
export const IndexRebuildStatusSchema = z.object({
  status: z.enum(["idle", "building"]),
  current: IndexGenerationSettingsSchema,
  rebuild: IndexRebuildProgressSchema.nullable(),
  last_rebuild: IndexRebuildProgressSchema.nullable(),
});
export type IndexRebuildStatus = z.infer<typeof IndexRebuildStatusSchema>;
