import { z } from "zod";
import { DocumentSourceSchema } from "./document-source";
import { FederatedConnectorSourceSchema } from "./federated-connector-source";
import { pyBool, pyEnum, pyEnumKeyDict, pyInt, pyList, pyModel, pyString } from "./pydantic-fields";

export const AccessTypeSchema = z.enum(["public", "private", "sync"]);
export type AccessType = z.infer<typeof AccessTypeSchema>;

export const ConnectorCredentialPairStatusSchema = z.enum(["SCHEDULED", "INITIAL_INDEXING", "ACTIVE", "PAUSED", "DELETING", "INVALID"]);
export type ConnectorCredentialPairStatus = z.infer<typeof ConnectorCredentialPairStatusSchema>;

/**
 * Status of an index attempt. `interrupted`: cut short by a crash or shutdown, not by a user (that is
 * `canceled`), docs/decisions.md "Connector listing".
 */
export const IndexingStatusSchema = z.enum(["not_started", "in_progress", "success", "canceled", "failed", "completed_with_errors", "interrupted"]);
export type IndexingStatus = z.infer<typeof IndexingStatusSchema>;

export const DocsCountOperatorSchema = z.enum([">", "<", "="]);
export type DocsCountOperator = z.infer<typeof DocsCountOperatorSchema>;

/** Most items in each filter list of the status listing (a longer list is a 422). */
export const MAX_INDEXING_STATUS_FILTERS = 100;

/** Rows per source and page in the status listing (docs/decisions.md). */
export const INDEXING_STATUS_PAGE_SIZE = 10;

const INDEXING_STATUS_REQUEST_FIELDS = {
  secondary_index: pyBool().default(false),
  source: pyEnum(DocumentSourceSchema).nullable().default(null),
  access_type_filters: pyList(pyEnum(AccessTypeSchema), { maxLength: MAX_INDEXING_STATUS_FILTERS }).default(() => []),
  last_status_filters: pyList(pyEnum(IndexingStatusSchema), { maxLength: MAX_INDEXING_STATUS_FILTERS }).default(() => []),
  docs_count_operator: pyEnum(DocsCountOperatorSchema).nullable().default(null),
  docs_count_value: pyInt().nullable().default(null),
  name_filter: pyString().nullable().default(null),
  // Source → 1-based page; a source left out is on page 1.
  source_to_page: pyEnumKeyDict(DocumentSourceSchema, pyInt({ ge: 1 })).default(() => ({})),
  get_all_connectors: pyBool().default(false),
};

/** Request body of POST /manage/admin/connector/indexing-status; `{}` asks for everything. */
export const IndexingStatusRequestSchema = pyModel("IndexingStatusRequest", INDEXING_STATUS_REQUEST_FIELDS);
export type IndexingStatusRequest = z.infer<typeof IndexingStatusRequestSchema>;

/** One connector-credential pair in the listing; every key is always present. */
/**
 * What the requesting key may do to a listed pair (the original's newest listing requires it):
 * `edit` renames, `pause` pauses or resumes, `delete` deletes, each as the pair routes would allow.
 */
export const CcPairPermissionsSchema = z.object({
  edit: z.boolean(),
  pause: z.boolean(),
  delete: z.boolean(),
});
export type CcPairPermissions = z.infer<typeof CcPairPermissionsSchema>;

export const ConnectorIndexingStatusLiteSchema = z.object({
  cc_pair_id: z.int(),
  name: z.string(),
  source: DocumentSourceSchema,
  access_type: AccessTypeSchema,
  cc_pair_status: ConnectorCredentialPairStatusSchema,
  in_progress: z.boolean(),
  in_repeated_error_state: z.boolean(),
  last_finished_status: IndexingStatusSchema.nullable(),
  last_status: IndexingStatusSchema.nullable(),
  last_success: z.iso.datetime({ offset: true }).nullable(),
  is_editable: z.boolean(),
  permissions: CcPairPermissionsSchema,
  docs_indexed: z.int(),
  latest_index_attempt_docs_indexed: z.int().nullable(),
});
export type ConnectorIndexingStatusLite = z.infer<typeof ConnectorIndexingStatusLiteSchema>;

/** A federated connector (searched live, indexes nothing), e.g. `{id, "federated_slack", "Federated Slack"}`. */
export const FederatedConnectorStatusSchema = z.object({
  id: z.int(),
  source: FederatedConnectorSourceSchema,
  name: z.string(),
});
export type FederatedConnectorStatus = z.infer<typeof FederatedConnectorStatusSchema>;

/** Counters over all filtered rows of a source, not just the page. */
export const ConnectorStatusSummarySchema = z.object({
  total_connectors: z.int(),
  active_connectors: z.int(),
  public_connectors: z.int(),
  total_docs_indexed: z.int(),
});
export type ConnectorStatusSummary = z.infer<typeof ConnectorStatusSummarySchema>;

export const ConnectorIndexingStatusGroupSchema = z.object({
  source: DocumentSourceSchema,
  summary: ConnectorStatusSummarySchema,
  current_page: z.int(),
  total_pages: z.int(),
  indexing_statuses: z.array(z.union([ConnectorIndexingStatusLiteSchema, FederatedConnectorStatusSchema])),
});
export type ConnectorIndexingStatusGroup = z.infer<typeof ConnectorIndexingStatusGroupSchema>;

/** Response body of POST /manage/admin/connector/indexing-status: one group per source. */
export const ConnectorIndexingStatusResponseSchema = z.array(ConnectorIndexingStatusGroupSchema);
export type ConnectorIndexingStatusResponse = z.infer<typeof ConnectorIndexingStatusResponseSchema>;

/**
 * The console's order of the listing (tRPC only: the REST listing keeps the contract's order, newest
 * pair first). `source` orders the groups; every other column orders the rows within each source,
 * before paging, so page 2 continues page 1. `failed` is the pair's failed documents.
 */
export const ConnectorSortColumnSchema = z.enum(["name", "source", "status", "last_status", "last_success", "docs_indexed", "failed"]);
export type ConnectorSortColumn = z.infer<typeof ConnectorSortColumnSchema>;

export const ConnectorSortSchema = z.object({
  column: ConnectorSortColumnSchema,
  direction: z.enum(["asc", "desc"]),
});
export type ConnectorSort = z.infer<typeof ConnectorSortSchema>;

/** The console's listing query: the REST request and an order (none: the contract's). */
export const ConsoleIndexingStatusInputSchema = pyModel("ConsoleIndexingStatusInput", {
  ...INDEXING_STATUS_REQUEST_FIELDS,
  sort: ConnectorSortSchema.nullable().default(null),
});
export type ConsoleIndexingStatusInput = z.input<typeof ConsoleIndexingStatusInputSchema>;
