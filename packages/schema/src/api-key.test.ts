import { describe, expect, it } from "vitest";
import { ApiKeyRoleSchema } from "./api-key";

describe("API key roles", () => {
  it("knows the four roles", () => {
    expect(ApiKeyRoleSchema.options).toEqual(["admin", "curator", "basic", "limited"]);
  });
});
