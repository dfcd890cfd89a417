import { CONNECTOR_ROLES, deleteDocument, getDocument } from "@svc/core";
import { DocumentIdPathSchema } from "@svc/schema";
import { readPathParams, restRoute } from "../../../../../lib/rest";

export const dynamic = "force-dynamic";

type Params = { document_id: string };

/** GET /api/svc-api/ingestion/{document_id}: the stored document and its indexing status. */
export const GET = restRoute<Params>(CONNECTOR_ROLES, async ({ params, principal, services }) => {
  const { document_id: documentId } = readPathParams(params, DocumentIdPathSchema);
  return getDocument({ db: services.db, principal, documentId });
});

/** DELETE /api/svc-api/ingestion/{document_id}: removes an ingested document everywhere. */
export const DELETE = restRoute<Params>(CONNECTOR_ROLES, async ({ params, principal, services }) => {
  const { document_id: documentId } = readPathParams(params, DocumentIdPathSchema);
  return deleteDocument({ db: services.db, principal, documentId });
});
