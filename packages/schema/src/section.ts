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

/**
 * `TextSection | ImageSection`, decided the way pydantic's smart union decides in practice:
 * a section whose `text` is a non-empty string is a text section (even with an `image_file_id`,
 * as in the original's published example); otherwise one with a string `image_file_id` is an image
 * section (an empty caption is dropped, so downstream `typeof text === "string"` means "text
 * section"); anything else is a text section.
 *
 * Errors: pydantic would report the failures of both members, each under the member's class name
 * (`[…, 0, "TextSection", "text"]` and `[…, 0, "ImageSection", "image_file_id"]`). docs/decisions.md
 * fixes the shape `["body","document","sections",0,"text"]`, so only the member the section reads as
 * is reported, without the class name: `{}` gives one `missing` at `…,0,"text"`, `{"text": 5}` one
 * `string_type` there, a non-object one `model_type` at `…,0`.
 */
export const SectionSchema = z.preprocess(
  (value: unknown, ctx) => {
    if (!isPlainObject(value)) {
      ctx.addIssue(pydanticIssue(pydanticErrors.modelType(), value));
      return z.NEVER;
    }
    const asImage = readsAsImageSection(value);
    const candidate = asImage && value.text === "" ? { ...value, text: null } : value;
    const result = (asImage ? ImageSectionSchema : TextSectionSchema).safeParse(candidate, { reportInput: true });
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.issues.push(issue as z.core.$ZodRawIssue);
    return z.NEVER;
  },
  z.union([TextSectionSchema, ImageSectionSchema]),
);
export type Section = z.infer<typeof SectionSchema>;
