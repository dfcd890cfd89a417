import { describe, expect, it } from "vitest";
import { FileUploadResponseSchema } from "./file-upload";

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
