// First: LANCE_CPU_THREADS must be raised before LanceDB's native code sizes its thread pool.
export { ensureLanceCpuThreads, MIN_LANCE_CPU_THREADS } from "./lance-threads";

export { type SearchAccess, type SearchFilter, buildSearchFilter } from "./build-search-filter";
export { type ChunkRow, type ChunkTag, tagsFromMetadata } from "./chunk-row";
export { COMMON_SHARE, sampleCommonWords } from "./common-words";
export { createGenerationTable } from "./create-generation-table";
export { deleteDocuments } from "./delete-documents";
export { dropGenerationTable } from "./drop-generation-table";
export { type GenerationTable, generationTableName } from "./generation-table";
export { inProcessGates, WriteGate, type TableGate, type TableGates } from "./write-gate";
export { clearSearchIndex, readIndexMarker, writeIndexMarker } from "./index-marker";
export { closeSearchIndex, openSearchIndex, type SearchIndex, type SearchIndexCacheBytes } from "./open-search-index";
export { measureGenerationTable, type GenerationTableSize } from "./measure-generation-table";
export { measureIndexFolder } from "./measure-index-folder";
export { openGenerationTable } from "./open-generation-table";
export { mergeGenerationTable, optimizeGenerationTable, refreshKeyIndexes } from "./optimize-generation-table";
export { parseSearchQuery, type ParsedSearchQuery } from "./parse-search-query";
export { appendDocuments, replaceDocuments } from "./replace-documents";
export {
  CHUNKS_PER_DOCUMENT,
  searchDocuments,
  type ReadShownChunks,
  type SearchHit,
  type SearchHitChunk,
  type SearchMatch,
  type ShownChunk,
} from "./search-documents";
export { SearchIndexError, type SearchIndexErrorCode } from "./search-index-error";
export {
  DEFAULT_TEXT_SEARCH_CONFIG,
  resolveTextSearchLanguage,
  SUPPORTED_TEXT_SEARCH_CONFIGS,
  type TextSearchLanguage,
} from "./text-search-language";
