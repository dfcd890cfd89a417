import { z } from "zod";
import { pydanticErrors } from "./pydantic-errors";
import { isPlainObject, pyModel, pyString, pydanticIssue } from "./pydantic-fields";

export const TextSectionSchema = pyModel("TextSection", {
  text: pyString(),
  link: pyString().nullable().optional(),
  image_file_id: pyString().nullable().optional(),
}).describe("A part of the document's text.");
export type TextSection = z.infer<typeof TextSectionSchema>;

export const ImageSectionSchema = pyModel("ImageSection", {
  image_file_id: pyString(),
  text: pyString().nullable().optional(),
  link: pyString().nullable().optional(),
}).describe("An image uploaded beforehand through POST /user/file/upload; `text` is its caption.");
export type ImageSection = z.infer<typeof ImageSectionSchema>;

/** True when a section object is to be read as an image section rather than a text section. */
function readsAsImageSection(section: Record<string, unknown>): boolean {
  const { text, image_file_id: imageFileId } = section;
  const hasText = typeof text === "string" && text !== "";
  return !hasText && typeof imageFileId === "string";
}

const SECTION_MEMBERS = [
  ["TextSection", TextSectionSchema],
  ["ImageSection", ImageSectionSchema],
] as const;

/**
 * A member's issues as pydantic reports a failed union member: under the member's class name
 * (`[…, 0, "TextSection", "text"]`). A `missing` keeps the section as its input, which the 422
 * body could no longer find by following the path.
 */
function underMember(name: string, issues: readonly z.core.$ZodIssue[], section: unknown): z.core.$ZodRawIssue[] {
  return issues.map((issue) => {
    const params: Record<string, unknown> = issue.code === "custom" ? { ...issue.params, parent: section } : {};
    return { ...issue, path: [name, ...issue.path], ...(issue.code === "custom" ? { params } : {}) } as z.core.$ZodRawIssue;
  });
}

/**
 * `TextSection | ImageSection`, decided the way pydantic's smart union decides in practice:
 * a section whose `text` is a non-empty string is a text section (even with an `image_file_id`,
 * as in the original's published example); otherwise one with a string `image_file_id` is an image
 * section (an empty caption is dropped, so downstream `typeof text === "string"` means "text
 * section"); anything else is a text section. When the preferred member fails, the other is tried.
 *
 * A section that fits neither is reported as pydantic reports a union: each member's errors under
 * its class name, members in the union's order — `{}` gives `missing` at `[…, 0, "TextSection",
 * "text"]` and at `[…, 0, "ImageSection", "image_file_id"]`; a non-object, `model_attributes_type`
 * at `[…, 0, "TextSection"]` and `[…, 0, "ImageSection"]`.
 */
export const SectionSchema = z.preprocess(
  (value: unknown, ctx) => {
    if (!isPlainObject(value)) {
      for (const [name] of SECTION_MEMBERS) ctx.addIssue(pydanticIssue(pydanticErrors.modelType(), value, [name]));
      return z.NEVER;
    }
    const asImage = readsAsImageSection(value);
    const imageCandidate = value.text === "" && typeof value.image_file_id === "string" ? { ...value, text: null } : value;
    const attempts = {
      TextSection: () => TextSectionSchema.safeParse(value, { reportInput: true }),
      ImageSection: () => ImageSectionSchema.safeParse(imageCandidate, { reportInput: true }),
    };
    const preferred = attempts[asImage ? "ImageSection" : "TextSection"]();
    if (preferred.success) return preferred.data;
    const other = attempts[asImage ? "TextSection" : "ImageSection"]();
    if (other.success) return other.data;
    const results = asImage ? { TextSection: other, ImageSection: preferred } : { TextSection: preferred, ImageSection: other };
    for (const [name] of SECTION_MEMBERS) ctx.issues.push(...underMember(name, results[name].error.issues, value));
    return z.NEVER;
  },
  z.union([TextSectionSchema, ImageSectionSchema]),
);
export type Section = z.infer<typeof SectionSchema>;
