import { z } from "zod";
import { DocumentSourceSchema } from "./document-source";
import { FederatedConnectorSourceSchema } from "./federated-connector-source";
import { AccessTypeSchema, ConnectorCredentialPairStatusSchema } from "./indexing-status";
import { pyEnum, pyInt, pyModel, pyString } from "./pydantic-fields";

/** The statuses an admin may set: PAUSED pauses a pair, ACTIVE resumes it; the others are reached by the service. */
export const SettableCcPairStatusSchema = z.enum(["ACTIVE", "PAUSED"]);
export type SettableCcPairStatus = z.infer<typeof SettableCcPairStatusSchema>;

/** Path parameters of `/manage/admin/cc-pair/{id}` and `/manage/admin/federated-connector/{id}`. */
export const IdPathSchema = pyModel("IdPath", {
  id: pyInt(),
});
export type IdPath = z.infer<typeof IdPathSchema>;

/** Body of POST /manage/admin/cc-pair: a connector, a credential and their pair, in one go. */
export const CreateCcPairRequestSchema = pyModel("CreateCcPairRequest", {
  name: pyString({ minLength: 1 }),
  source: pyEnum(DocumentSourceSchema),
  access_type: pyEnum(AccessTypeSchema),
});
export type CreateCcPairRequest = z.infer<typeof CreateCcPairRequestSchema>;

export const CreatedCcPairSchema = z.object({
  cc_pair_id: z.int(),
  connector_id: z.int(),
  credential_id: z.int(),
});
export type CreatedCcPair = z.infer<typeof CreatedCcPairSchema>;

/** Body of PATCH /manage/admin/cc-pair/{id}; a field left out (or null) is not changed. */
export const UpdateCcPairRequestSchema = pyModel("UpdateCcPairRequest", {
  name: pyString({ minLength: 1 }).nullable().default(null),
  status: pyEnum(SettableCcPairStatusSchema).nullable().default(null),
});
export type UpdateCcPairRequest = z.infer<typeof UpdateCcPairRequestSchema>;

/** Body of PUT /manage/admin/cc-pair/{id}/status (the original's `CCStatusUpdateRequest`). */
export const CcStatusUpdateRequestSchema = pyModel("CCStatusUpdateRequest", {
  status: pyEnum(SettableCcPairStatusSchema),
});
export type CcStatusUpdateRequest = z.infer<typeof CcStatusUpdateRequestSchema>;

/** A connector-credential pair as GET, PATCH and DELETE /manage/admin/cc-pair/{id} answer it. */
export const CcPairSchema = z.object({
  id: z.int(),
  name: z.string(),
  source: DocumentSourceSchema,
  access_type: AccessTypeSchema,
  status: ConnectorCredentialPairStatusSchema,
  connector_id: z.int(),
  credential_id: z.int(),
  docs_indexed: z.int(),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
});
export type CcPair = z.infer<typeof CcPairSchema>;

/** Body of POST /manage/admin/federated-connector; without a name the listing shows e.g. "Federated Slack". */
export const CreateFederatedConnectorRequestSchema = pyModel("CreateFederatedConnectorRequest", {
  source: pyEnum(FederatedConnectorSourceSchema),
  name: pyString({ minLength: 1 }).nullable().default(null),
});
export type CreateFederatedConnectorRequest = z.infer<typeof CreateFederatedConnectorRequestSchema>;

/** Answer to creating or deleting a federated connector. */
export const FederatedConnectorIdSchema = z.object({
  id: z.int(),
});
export type FederatedConnectorId = z.infer<typeof FederatedConnectorIdSchema>;
