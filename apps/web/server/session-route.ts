import { authenticateAdminSession, AppError, type Principal } from "@svc/core";
import { errorResponse } from "./rest/error-response";
import { getServices, type Services } from "./services";
import { isSameOriginRequest } from "./same-origin";
import { readSessionToken } from "./session-cookie";

/**
 * Wraps a route handler of the admin console that tRPC cannot carry (multipart uploads): the same
 * same-origin check as tRPC's POSTs, then the session cookie, then REST's error mapping.
 */
export function sessionRoute(handler: (context: { request: Request; principal: Principal; services: Services }) => Promise<unknown>) {
  return async (request: Request): Promise<Response> => {
    try {
      if (!isSameOriginRequest(request)) throw new AppError("FORBIDDEN", "Cross-site request refused.");
      const services = await getServices();
      const principal = await authenticateAdminSession({
        db: services.db,
        token: readSessionToken(request.headers.get("cookie")),
        uses: services.apiKeyUses,
      });
      const result = await handler({ request, principal, services });
      return result instanceof Response ? result : Response.json(result);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
