import type { z } from "zod";
import { pyBool, pyList, pyModel, pyString } from "./pydantic-fields";

/**
 * Who may see a document in search; replaces the pair's access type for that document. The lists are
 * sets, as in the original: repeats are merged.
 */
export const ExternalAccessSchema = pyModel("ExternalAccess", {
  external_user_emails: pyList(pyString(), { asSet: true }),
  external_user_group_ids: pyList(pyString(), { asSet: true }),
  is_public: pyBool(),
});
export type ExternalAccess = z.infer<typeof ExternalAccessSchema>;
