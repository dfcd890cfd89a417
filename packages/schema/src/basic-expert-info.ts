import type { z } from "zod";
import { pyModel, pyString } from "./pydantic-fields";

/** An owner of a document; every part is optional. */
export const BasicExpertInfoSchema = pyModel("BasicExpertInfo", {
  display_name: pyString().nullable().optional(),
  first_name: pyString().nullable().optional(),
  middle_initial: pyString().nullable().optional(),
  last_name: pyString().nullable().optional(),
  email: pyString().nullable().optional(),
});
export type BasicExpertInfo = z.infer<typeof BasicExpertInfoSchema>;

function present(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/**
 * How an owner is shown (interface.md 2.5): first name, middle initial and last name when both
 * names are known; else the display name; else the email; else the first name alone; else null.
 * Blank parts count as absent. Names keep the case they were given (the original capitalised each
 * part, which mangles names such as "McDonald"); a one-letter middle initial gets its period.
 */
export function ownerDisplayName(owner: BasicExpertInfo): string | null {
  const firstName = present(owner.first_name);
  const lastName = present(owner.last_name);
  if (firstName && lastName) {
    const middle = present(owner.middle_initial);
    const initial = middle && middle.length === 1 ? `${middle}.` : middle;
    return [firstName, initial, lastName].filter((part): part is string => part !== null).join(" ");
  }
  return present(owner.display_name) ?? present(owner.email) ?? firstName;
}
