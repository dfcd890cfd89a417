import { deleteDocument, getDocumentWithChunks, retryDocumentIndexing, searchDocuments } from "@svc/core";
import { ConsoleDocumentSchema, ConsoleSearchResponseSchema, DocumentIdInputSchema, OkSchema, SearchRequestSchema, camelInput } from "@svc/schema";
import { observeSearch } from "../../observability/observe-search";
import { acknowledge, router, sessionProcedure } from "../init";

// Same rules as the REST document endpoints, applied in core: a key sees the documents the one access
// rule allows (access-policy.ts), and changes only documents all of whose pairs are its own.
export const documentsRouter = router({
  search: sessionProcedure
    .input(camelInput(SearchRequestSchema))
    .output(ConsoleSearchResponseSchema)
    .query(({ ctx, input, signal }) =>
      observeSearch(() =>
        searchDocuments({ db: ctx.db, index: ctx.index, principal: ctx.principal, request: input, timeoutMs: ctx.searchTimeoutMs, signal }),
      ),
    ),

  get: sessionProcedure
    .input(DocumentIdInputSchema)
    .output(ConsoleDocumentSchema)
    .query(({ ctx, input }) => getDocumentWithChunks({ db: ctx.db, principal: ctx.principal, documentId: input.documentId })),

  delete: sessionProcedure
    .input(DocumentIdInputSchema)
    .output(OkSchema)
    .mutation(({ ctx, input }) => acknowledge(deleteDocument({ db: ctx.db, index: ctx.index, principal: ctx.principal, documentId: input.documentId }))),

  retry: sessionProcedure
    .input(DocumentIdInputSchema)
    .output(OkSchema)
    .mutation(({ ctx, input }) => acknowledge(retryDocumentIndexing({ db: ctx.db, boss: ctx.boss, principal: ctx.principal, documentId: input.documentId }))),
});
