/**
 * What the search index refuses, by code, so the caller maps each to its own answer (core turns
 * UNSUPPORTED_TEXT_SEARCH_CONFIG into a 422 at rebuild; TIMEOUT: a search ran past its deadline;
 * ABORTED: its caller went away). Messages are safe to show to a client.
 */
export type SearchIndexErrorCode = "UNSUPPORTED_TEXT_SEARCH_CONFIG" | "INVALID_ARGUMENT" | "TIMEOUT" | "ABORTED";

export class SearchIndexError extends Error {
  readonly code: SearchIndexErrorCode;

  constructor(code: SearchIndexErrorCode, message: string) {
    super(message);
    this.name = "SearchIndexError";
    this.code = code;
  }
}
