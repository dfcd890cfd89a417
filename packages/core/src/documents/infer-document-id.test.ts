import { describe, expect, it } from "vitest";
import { inferDocumentId } from "./infer-document-id";

describe("inferDocumentId", () => {
  it("turns spaces into underscores and keeps unreserved characters", () => {
    expect(inferDocumentId("Quarterly report v2.1-final~x")).toBe("ingestion_api_Quarterly_report_v2.1-final~x");
  });

  it("percent-encodes everything else as upper-case UTF-8 bytes", () => {
    expect(inferDocumentId("a/b?c=d&e")).toBe("ingestion_api_a%2Fb%3Fc%3Dd%26e");
    expect(inferDocumentId("Café ü")).toBe("ingestion_api_Caf%C3%A9_%C3%BC");
    expect(inferDocumentId("😀")).toBe("ingestion_api_%F0%9F%98%80");
  });

  it("matches Python's quote(s.replace(' ', '_'), safe='') for a mixed identifier", () => {
    // urllib.parse.quote("Q3 plan: 50%+/more".replace(" ", "_"), safe="")
    expect(inferDocumentId("Q3 plan: 50%+/more")).toBe("ingestion_api_Q3_plan%3A_50%25%2B%2Fmore");
  });
});
