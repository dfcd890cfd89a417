import { z } from "zod";

/** Body of the 400, 401, 403, 404 and 413 responses. */
export const ErrorDetailSchema = z.object({
  detail: z.string(),
});
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;
