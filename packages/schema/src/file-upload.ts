import { z } from "zod";
import { pyModel, pyString } from "./pydantic-fields";

/** The most files one upload request may carry (docs/decisions.md "Uploads"). */
export const MAX_FILES_PER_UPLOAD = 100;

/** Multipart body of POST /user/file/upload: one or more parts named `files`. */
export const FileUploadRequestSchema = z.object({
  files: z.array(z.file()).min(1).max(MAX_FILES_PER_UPLOAD),
});
export type FileUploadRequest = z.infer<typeof FileUploadRequestSchema>;

/**
 * An uploaded file's name as stored and shown: the client's name without C0/C1 control characters
 * (NUL among them, which PostgreSQL text refuses) or unpaired surrogates. A name is a label here,
 * never a path, so nothing else needs changing.
 */
export function cleanFileName(name: string): string {
  let cleaned = "";
  // for…of yields code points: a paired surrogate comes as one, an unpaired one alone.
  for (const char of name) {
    const code = char.codePointAt(0) ?? 0;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    const unpaired = code >= 0xd800 && code <= 0xdfff;
    if (!control && !unpaired) cleaned += char;
  }
  return cleaned;
}

/** Path parameters of `DELETE /user/file/{file_id}`. */
export const FileIdPathSchema = pyModel("FileIdPath", {
  file_id: pyString(),
});
export type FileIdPath = z.infer<typeof FileIdPathSchema>;

/** A stored upload; `file_id` is what goes into a section's `image_file_id`. */
export const UserFileSchema = z.object({
  id: z.int(),
  name: z.string(),
  file_id: z.string(),
  file_type: z.string(),
  size_bytes: z.int(),
  created_at: z.iso.datetime({ offset: true }),
});
export type UserFile = z.infer<typeof UserFileSchema>;

export const RejectedFileSchema = z.object({
  file_name: z.string(),
  reason: z.string(),
});
export type RejectedFile = z.infer<typeof RejectedFileSchema>;

/** Both upload responses list the stored files, each in its release's shape, beside the rejected ones. */
function uploadResponseSchema<File extends z.ZodType>(fileSchema: File) {
  return z.object({ user_files: z.array(fileSchema), rejected_files: z.array(RejectedFileSchema) });
}

/** Response of POST /user/file/upload: one bad file does not fail the others. */
export const FileUploadResponseSchema = uploadResponseSchema(UserFileSchema);
export type FileUploadResponse = z.infer<typeof FileUploadResponseSchema>;

/**
 * A stored upload as the original's newer releases describe it (`UserFileSnapshot`): the fields svc
 * has no notion of (projects, users, token counts) are null, an upload is `COMPLETED` at once, and
 * `id` is the upload's UUID, the same as `file_id` (docs/decisions.md "Uploads").
 */
export const UserFileSnapshotSchema = z.object({
  id: z.uuid(),
  temp_id: z.null(),
  name: z.string(),
  project_id: z.null(),
  user_id: z.null(),
  file_id: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  status: z.literal("COMPLETED"),
  last_accessed_at: z.null(),
  /** The MIME type. */
  file_type: z.string(),
  chat_file_type: z.literal("image"),
  token_count: z.null(),
  chunk_count: z.null(),
});
export type UserFileSnapshot = z.infer<typeof UserFileSnapshotSchema>;

/** Response of POST /user/projects/file/upload (the newer release's `CategorizedFilesSnapshot`). */
export const CategorizedFilesSnapshotSchema = uploadResponseSchema(UserFileSnapshotSchema);
export type CategorizedFilesSnapshot = z.infer<typeof CategorizedFilesSnapshotSchema>;
