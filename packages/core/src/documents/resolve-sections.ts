import type { DbOrTx } from "@svc/db";
import type { IngestionDocument } from "@svc/schema";
import { AppError } from "../errors/app-error";

type RequestSection = IngestionDocument["document"]["sections"][number];

/** A section as stored: its position, its kind, and an image reference only when the file exists. */
export interface ResolvedSection {
  position: number;
  kind: "text" | "image";
  text: string | null;
  link: string | null;
  image_file_id: string | null;
}

/**
 * Classifies sections and checks their image references. A section with text is a text section
 * (its `image_file_id` is kept only when it names an uploaded file: published examples send a
 * placeholder there). A section without text is an image section, whose file must exist.
 */
export async function resolveSections({
  db,
  sections,
}: {
  db: DbOrTx;
  sections: readonly RequestSection[];
}): Promise<ResolvedSection[]> {
  const referencedIds = [
    ...new Set(sections.map((section) => section.image_file_id).filter((id): id is string => Boolean(id))),
  ];
  const knownIds =
    referencedIds.length === 0
      ? new Set<string>()
      : new Set(
          (
            await db.uploadedFile.findMany({ where: { fileId: { in: referencedIds } }, select: { fileId: true } })
          ).map((file) => file.fileId),
        );

  const unknownImages = sections.flatMap((section, position) =>
    typeof section.text !== "string" && !knownIds.has(section.image_file_id ?? "")
      ? [
          {
            type: "value_error",
            loc: ["body", "document", "sections", position, "image_file_id"],
            msg: "Value error, image_file_id does not name an uploaded file; upload the image through /user/file/upload first",
            input: section.image_file_id ?? null,
          },
        ]
      : [],
  );
  if (unknownImages.length > 0) {
    throw new AppError("VALIDATION_FAILED", "Unknown image file", { detail: unknownImages });
  }

  return sections.map((section, position) => {
    const imageFileId = section.image_file_id && knownIds.has(section.image_file_id) ? section.image_file_id : null;
    return {
      position,
      kind: typeof section.text === "string" ? "text" : "image",
      text: section.text ?? null,
      link: section.link ?? null,
      image_file_id: imageFileId,
    };
  });
}
