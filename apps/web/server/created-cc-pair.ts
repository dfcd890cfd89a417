import type { NewCcPairIds } from "@svc/core";
import type { CreatedCcPair } from "@svc/schema";

/** A new pair's ids as the wire has them (CreatedCcPair), for REST and the console alike. */
export function toCreatedCcPair(created: NewCcPairIds): CreatedCcPair {
  return { cc_pair_id: created.ccPairId, connector_id: created.connectorId, credential_id: created.credentialId };
}
