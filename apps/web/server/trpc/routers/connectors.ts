import {
  createCcPair,
  createFederatedConnector,
  deleteCcPair,
  deleteFederatedConnector,
  countFailedDocuments,
  countFailedDocumentsPerPair,
  getCcPair,
  getPairIndexingSummary,
  listPairDocumentStatuses,
  retryPairFailedDocuments,
  listCcPairDocuments,
  listIndexAttempts,
  listIndexingStatus,
  updateCcPair,
} from "@svc/core";
import {
  CcPairIdInputSchema,
  ConnectorAttemptsInputSchema,
  ConnectorDocumentsInputSchema,
  ConsoleCcPairSchema,
  ConsoleCreateCcPairInputSchema,
  ConsoleCreatedCcPairSchema,
  ConsoleDocumentPageSchema,
  ConsoleIndexingStatusSchema,
  CreateFederatedConnectorRequestSchema,
  FailedDocumentCountsInputSchema,
  FailedDocumentCountsSchema,
  FederatedConnectorIdInputSchema,
  FederatedConnectorIdSchema,
  IndexAttemptSummarySchema,
  ConsoleIndexingStatusInputSchema,
  OkSchema,
  PairDocumentStatusesInputSchema,
  PairDocumentStatusPageSchema,
  PairIndexingSummarySchema,
  RetryPairDocumentsResultSchema,
  UpdateConnectorInputSchema,
  camelInput,
} from "@svc/schema";
import { z } from "zod";
import { acknowledge, adminProcedure, router, sessionProcedure } from "../init";

// Reads are open to every console user within the key's scope (core applies it); creating and
// deleting pairs and federated connectors is for admins, as over REST; changing a pair needs a key
// that may edit it (an admin's, or a curator's scoped to it: core's lockEditableCcPair decides).
export const connectorsRouter = router({
  /** The REST listing's request, in the console's order. */
  indexingStatus: sessionProcedure
    .input(camelInput(ConsoleIndexingStatusInputSchema))
    .output(ConsoleIndexingStatusSchema)
    .query(({ ctx, input: { sort, ...request }, signal }) => listIndexingStatus({ db: ctx.db, principal: ctx.principal, request, sort, signal })),

  get: sessionProcedure
    .input(CcPairIdInputSchema)
    .output(ConsoleCcPairSchema)
    .query(({ ctx, input }) => getCcPair({ db: ctx.db, principal: ctx.principal, ccPairId: input.ccPairId })),

  attempts: sessionProcedure
    .input(ConnectorAttemptsInputSchema)
    .output(z.array(IndexAttemptSummarySchema))
    .query(({ ctx, input }) => listIndexAttempts({ db: ctx.db, principal: ctx.principal, ccPairId: input.ccPairId, limit: input.limit })),

  documents: sessionProcedure
    .input(ConnectorDocumentsInputSchema)
    .output(ConsoleDocumentPageSchema)
    .query(({ ctx, input }) =>
      listCcPairDocuments({ db: ctx.db, principal: ctx.principal, ccPairId: input.ccPairId, limit: input.limit, afterId: input.cursor }),
    ),

  /** Failed documents of the listed pairs and in all, by the one definition of failed. */
  failedDocumentCounts: sessionProcedure
    .input(FailedDocumentCountsInputSchema)
    .output(FailedDocumentCountsSchema)
    .query(async ({ ctx, input }) => {
      const [total, byPair] = await Promise.all([
        countFailedDocuments({ db: ctx.db, principal: ctx.principal }),
        countFailedDocumentsPerPair({ db: ctx.db, principal: ctx.principal, ccPairIds: input.ccPairIds }),
      ]);
      return { total, byPair: [...byPair].map(([ccPairId, failed]) => ({ ccPairId, failed })) };
    }),

  /** The pair page's header: the listing's repeated-error state and the documents by status. */
  indexingSummary: sessionProcedure
    .input(CcPairIdInputSchema)
    .output(PairIndexingSummarySchema)
    .query(({ ctx, input }) => getPairIndexingSummary({ db: ctx.db, principal: ctx.principal, ccPairId: input.ccPairId })),

  /** The pair page's documents with their status and last error, filtered by status and name/id, sorted, paged. */
  documentStatuses: sessionProcedure
    .input(PairDocumentStatusesInputSchema)
    .output(PairDocumentStatusPageSchema)
    .query(({ ctx, input, signal }) =>
      listPairDocumentStatuses({
        db: ctx.db,
        principal: ctx.principal,
        ccPairId: input.ccPairId,
        status: input.status ?? null,
        query: input.query,
        sort: input.sort,
        limit: input.limit,
        afterId: input.cursor,
        signal,
      }),
    ),

  /** Retries every failed document of the pair the key may change (a curator's within its scope, as documents.retry). */
  retryFailed: sessionProcedure
    .input(CcPairIdInputSchema)
    .output(RetryPairDocumentsResultSchema)
    .mutation(({ ctx, input }) => retryPairFailedDocuments({ db: ctx.db, boss: ctx.boss, principal: ctx.principal, ccPairId: input.ccPairId })),

  create: adminProcedure
    .input(ConsoleCreateCcPairInputSchema)
    .output(ConsoleCreatedCcPairSchema)
    .mutation(({ ctx, input }) => createCcPair({ db: ctx.db, name: input.name, source: input.source, accessType: input.accessType })),

  // Admin only, as REST's PATCH /manage/admin/cc-pair/{id}; a scoped admin only within its scope.
  update: adminProcedure
    .input(UpdateConnectorInputSchema)
    .output(ConsoleCcPairSchema)
    .mutation(({ ctx, input }) =>
      updateCcPair({
        db: ctx.db,
        boss: ctx.boss,
        principal: ctx.principal,
        ccPairId: input.ccPairId,
        name: input.name ?? null,
        status: input.status ?? null,
      }),
    ),

  delete: adminProcedure
    .input(CcPairIdInputSchema)
    .output(OkSchema)
    .mutation(({ ctx, input }) => acknowledge(deleteCcPair({ db: ctx.db, boss: ctx.boss, principal: ctx.principal, ccPairId: input.ccPairId }))),

  createFederated: adminProcedure
    .input(CreateFederatedConnectorRequestSchema)
    .output(FederatedConnectorIdSchema)
    .mutation(({ ctx, input }) => createFederatedConnector({ db: ctx.db, principal: ctx.principal, source: input.source, name: input.name })),

  deleteFederated: adminProcedure
    .input(FederatedConnectorIdInputSchema)
    .output(FederatedConnectorIdSchema)
    .mutation(({ ctx, input }) => deleteFederatedConnector({ db: ctx.db, principal: ctx.principal, id: input.id })),
});
