import { deleteUploadedFile, listUploadedFiles } from "@svc/core";
import { FileIdInputSchema, UPLOADED_FILES_LIMIT, UploadedFileSchema } from "@svc/schema";
import { z } from "zod";
import { adminProcedure, router, sessionProcedure } from "../init";

// Uploading goes through POST /api/admin/upload (multipart does not fit tRPC's JSON); listing and
// deleting are here, within the session's scope.
export const uploadsRouter = router({
  list: sessionProcedure
    .output(z.array(UploadedFileSchema))
    .query(({ ctx }) => listUploadedFiles({ db: ctx.db, principal: ctx.principal, limit: UPLOADED_FILES_LIMIT })),

  /** As DELETE /user/file/{file_id}: NOT_FOUND outside the scope, CONFLICT while an image section names it. */
  delete: adminProcedure
    .input(FileIdInputSchema)
    .output(UploadedFileSchema)
    .mutation(({ ctx, input }) => deleteUploadedFile({ db: ctx.db, principal: ctx.principal, fileId: input.fileId })),
});
