import { describe, expect, it } from "vitest";
import { useTestApp } from "./app";
import { ingestAndIndexOverApi } from "./factories";

// A search timeout of 1 ms: every search runs past it (a round trip to PostgreSQL and a LanceDB
// query each take longer), so the answer is the overload one, not a page.
const app = useTestApp({ SVC_SEARCH_TIMEOUT_MS: "1" });

describe("POST /api/svc-api/search past SVC_SEARCH_TIMEOUT_MS", () => {
  it("answers 503 with Retry-After: 1 and the documented detail", async () => {
    await ingestAndIndexOverApi(app, { id: "slow-1", text: "tardigrade survival notes" });
    const response = await app.request("POST", "/api/svc-api/search", { body: { query: "tardigrade" } });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ detail: "Search took too long; narrow the query" });
  });
});
