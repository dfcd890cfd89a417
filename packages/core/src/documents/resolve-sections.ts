import type { DbOrTx } from "@svc/db";
import type { IngestionDocument, Loc } from "@svc/schema";
import type { Principal } from "../auth/principal";
import { AppError } from "../errors/app-error";
import { visibleUploadsWhere } from "../files/upload-scope";
import type { ResolvedSection } from "../indexing/document-rows";

type RequestSection = IngestionDocument["document"]["sections"][number];

/**
 * Which of the image files the sections name exist within the principal's scope (another scope's
 * file is as unknown as a missing one): one query for any number of documents (a bulk call checks
 * all of its documents' references at once).
 */
export async function findUploadedFileIds({
  db,
  principal,
  sections,
}: {
  db: DbOrTx;
  principal: Principal;
  sections: readonly RequestSection[];
}): Promise<Set<string>> {
  const referencedIds = [
    ...new Set(sections.map((section) => section.image_file_id).filter((id): id is string => Boolean(id))),
  ];
  if (referencedIds.length === 0) return new Set();
  const files = await db.uploadedFile.findMany({ where: { ...visibleUploadsWhere(principal), fileId: { in: referencedIds } }, select: { fileId: true } });
  return new Set(files.map((file) => file.fileId));
}

/**
 * Classifies sections and checks their image references against the files that exist. A section
 * with text is a text section (its `image_file_id` is kept only when it names an uploaded file:
 * published examples send a placeholder there). A section without text is an image section, whose
 * file must exist: else a 422 at the section's `loc` under `bodyLoc` (where the request put the document).
 */
export function resolveSections({
  sections,
  knownFileIds,
  bodyLoc,
}: {
  sections: readonly RequestSection[];
  knownFileIds: ReadonlySet<string>;
  bodyLoc: Loc;
}): ResolvedSection[] {
  const unknownImages = sections.flatMap((section, position) =>
    typeof section.text !== "string" && !knownFileIds.has(section.image_file_id ?? "")
      ? [
          {
            type: "value_error",
            loc: [...bodyLoc, "document", "sections", position, "image_file_id"],
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
    const imageFileId = section.image_file_id && knownFileIds.has(section.image_file_id) ? section.image_file_id : null;
    return {
      position,
      kind: typeof section.text === "string" ? "text" : "image",
      text: section.text ?? null,
      link: section.link ?? null,
      image_file_id: imageFileId,
    };
  });
}
