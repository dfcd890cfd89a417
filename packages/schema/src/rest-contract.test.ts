import { describe, expect, it } from "vitest";
import { z } from "zod";
import { REST_CONTRACT, successStatus, type RestEndpoint } from "./rest-contract";

const entries: [string, RestEndpoint][] = Object.entries(REST_CONTRACT);

describe("REST_CONTRACT", () => {
  it("declares each method and path once", () => {
    const routes = entries.map(([, entry]) => `${entry.method} ${entry.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("gives every entry exactly one 2xx response", () => {
    for (const [id, entry] of entries) {
      const successes = Object.keys(entry.responses).filter((status) => status.startsWith("2"));
      expect(successes, id).toHaveLength(1);
      expect(successStatus(entry), id).toBe(Number(successes[0]));
    }
  });

  it("names each `{param}` of a path in its path schema and descriptions, and nothing else", () => {
    for (const [id, entry] of entries) {
      const inPath = [...entry.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      const schema = entry.pathParams ? (z.toJSONSchema(entry.pathParams.schema, { io: "input" }) as { properties?: object }) : {};
      expect(Object.keys(schema.properties ?? {}).sort(), id).toEqual(inPath);
      expect(Object.keys(entry.pathParams?.descriptions ?? {}).sort(), id).toEqual(inPath);
    }
  });

  it("describes every query parameter it validates", () => {
    for (const [id, entry] of entries) {
      if (!entry.query) continue;
      const schema = z.toJSONSchema(entry.query.schema, { io: "input" }) as { properties?: object };
      expect(Object.keys(entry.query.descriptions).sort(), id).toEqual(Object.keys(schema.properties ?? {}).sort());
    }
  });
});
