import { buildOpenApiDocument } from "@svc/schema";

export const dynamic = "force-static";

/** GET /api/openapi.json: the OpenAPI 3.1 document, built from the same zod schemas the routes use. */
export function GET(): Response {
  return Response.json(buildOpenApiDocument());
}
