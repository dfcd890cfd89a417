import { describe, expect, it } from "vitest";
import { ApiKeyInfoSchema, ApiKeyRoleSchema, CreateApiKeyRequestSchema } from "./api-key";
import { FileUploadResponseSchema } from "./file-upload";
import { validateBody } from "./request-body";

describe("API key models", () => {
  it("knows the four roles", () => {
    expect(ApiKeyRoleSchema.options).toEqual(["admin", "curator", "basic", "limited"]);
  });

  it("parses a create request, scope optional", () => {
    expect(CreateApiKeyRequestSchema.parse({ name: "ci", role: "curator" })).toEqual({
      name: "ci",
      role: "curator",
      cc_pair_ids: [],
    });
    expect(CreateApiKeyRequestSchema.parse({ name: "ci", role: "admin", cc_pair_ids: [3, "4"] }).cc_pair_ids).toEqual([3, 4]);
  });

  it("refuses a bad create request with pydantic's errors", () => {
    const result = validateBody(CreateApiKeyRequestSchema, { name: "", role: "root", cc_pair_ids: [0] });
    expect(result.ok ? null : result.body.detail.map((item) => [item.loc, item.type])).toEqual([
      [["body", "name"], "string_too_short"],
      [["body", "role"], "enum"],
      [["body", "cc_pair_ids", 0], "greater_than_equal"],
    ]);
  });

  it("describes a listed key", () => {
    const info = {
      id: 1,
      name: "ci",
      role: "admin",
      display_prefix: "svc_ab12",
      cc_pair_ids: [],
      created_at: "2024-01-01T00:00:00.000Z",
      last_used_at: null,
      revoked_at: null,
    };
    expect(ApiKeyInfoSchema.parse(info)).toEqual(info);
    expect(ApiKeyInfoSchema.safeParse({ ...info, created_at: "yesterday" }).success).toBe(false);
  });
});

describe("FileUploadResponseSchema", () => {
  it("describes accepted and rejected files", () => {
    const response = {
      user_files: [
        { id: 1, name: "a.png", file_id: "0b7c", file_type: "image/png", size_bytes: 10, created_at: "2024-01-01T00:00:00.000Z" },
      ],
      rejected_files: [{ file_name: "b.txt", reason: "Unsupported file type" }],
    };
    expect(FileUploadResponseSchema.parse(response)).toEqual(response);
  });
});
