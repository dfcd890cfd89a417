import { z } from "zod";

/** Multipart body of POST /user/file/upload: one or more parts named `files`. */
export const FileUploadRequestSchema = z.object({
  files: z.array(z.file()).min(1),
});
export type FileUploadRequest = z.infer<typeof FileUploadRequestSchema>;

// C0 and C1 control characters (NUL among them, which PostgreSQL text refuses) and unpaired surrogates.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f]|[\uD800-\uDFFF]/gu;

/**
 * An uploaded file's name as stored and shown: the client's name without control characters or
 * unpaired surrogates (a name is a label, never a path here, so nothing else needs changing).
 */
export function cleanFileName(name: string): string {
  return name.replace(UNPRINTABLE, "");
}

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

/** Response of POST /user/file/upload: one bad file does not fail the others. */
export const FileUploadResponseSchema = z.object({
  user_files: z.array(UserFileSchema),
  rejected_files: z.array(RejectedFileSchema),
});
export type FileUploadResponse = z.infer<typeof FileUploadResponseSchema>;
