import { describe, expect, it } from "vitest";
import {
  CreateCcPairRequestSchema,
  CreateFederatedConnectorRequestSchema,
  IdPathSchema,
  UpdateCcPairRequestSchema,
} from "./cc-pair";
import { validateBody } from "./request-body";

function faults(schema: Parameters<typeof validateBody>[0], value: unknown, locPrefix = ["body"]) {
  const result = validateBody(schema, value, { locPrefix });
  if (result.ok) throw new Error("expected a 422");
  return result.body.detail.map((item) => [item.loc, item.type]);
}

describe("CreateCcPairRequestSchema", () => {
  it("takes a name, a source and an access type, all required", () => {
    expect(CreateCcPairRequestSchema.parse({ name: "Wiki", source: "web", access_type: "public" })).toEqual({
      name: "Wiki",
      source: "web",
      access_type: "public",
    });
    expect(faults(CreateCcPairRequestSchema, {})).toEqual([
      [["body", "name"], "missing"],
      [["body", "source"], "missing"],
      [["body", "access_type"], "missing"],
    ]);
    expect(faults(CreateCcPairRequestSchema, { name: "", source: "nowhere", access_type: "open" })).toEqual([
      [["body", "name"], "string_too_short"],
      [["body", "source"], "enum"],
      [["body", "access_type"], "enum"],
    ]);
  });
});

describe("UpdateCcPairRequestSchema", () => {
  it("leaves out what is not given and accepts only ACTIVE and PAUSED", () => {
    expect(UpdateCcPairRequestSchema.parse({})).toEqual({ name: null, status: null });
    expect(UpdateCcPairRequestSchema.parse({ status: "PAUSED" })).toEqual({ name: null, status: "PAUSED" });
    expect(faults(UpdateCcPairRequestSchema, { status: "DELETING" })).toEqual([[["body", "status"], "enum"]]);
    expect(faults(UpdateCcPairRequestSchema, { name: 3 })).toEqual([[["body", "name"], "string_type"]]);
  });
});

describe("CreateFederatedConnectorRequestSchema", () => {
  it("takes a federated source and an optional name", () => {
    expect(CreateFederatedConnectorRequestSchema.parse({ source: "federated_slack" })).toEqual({
      source: "federated_slack",
      name: null,
    });
    expect(faults(CreateFederatedConnectorRequestSchema, { source: "slack" })).toEqual([[["body", "source"], "enum"]]);
  });
});

describe("IdPathSchema", () => {
  it("parses the id like FastAPI parses an int path parameter, at loc path.id", () => {
    expect(IdPathSchema.parse({ id: "12" })).toEqual({ id: 12 });
    const result = validateBody(IdPathSchema, { id: "abc" }, { locPrefix: ["path"] });
    expect(result.ok ? null : result.body.detail).toEqual([
      {
        type: "int_parsing",
        loc: ["path", "id"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "abc",
      },
    ]);
  });
});
