import { z } from "zod";

/** Federated connectors known to the service; each is listed under its plain source (`federated_slack` → `slack`). */
export const FederatedConnectorSourceSchema = z.enum(["federated_slack"]);
export type FederatedConnectorSource = z.infer<typeof FederatedConnectorSourceSchema>;
