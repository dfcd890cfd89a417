import { listUploadedFiles } from "@svc/core";
import { UPLOADED_FILES_LIMIT, UploadedFileSchema } from "@svc/schema";
import { z } from "zod";
import { router, sessionProcedure } from "../init";

// Uploading goes through POST /api/admin/upload (multipart does not fit tRPC's JSON); listing is here.
export const uploadsRouter = router({
  list: sessionProcedure
    .output(z.array(UploadedFileSchema))
    .query(({ ctx }) => listUploadedFiles({ db: ctx.db, limit: UPLOADED_FILES_LIMIT })),
});
