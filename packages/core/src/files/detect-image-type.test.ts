import { describe, expect, it } from "vitest";
import { detectImageType } from "./detect-image-type";

const bytes = (...values: (number | string)[]) =>
  Uint8Array.from(values.flatMap((value) => (typeof value === "string" ? [...value].map((c) => c.charCodeAt(0)) : [value])));

describe("detectImageType", () => {
  it("recognises PNG, JPEG, GIF and WebP by their magic bytes", () => {
    expect(detectImageType(bytes(0x89, "PNG", 0x0d, 0x0a, 0x1a, 0x0a, 0, 0))).toBe("image/png");
    expect(detectImageType(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(detectImageType(bytes("GIF89a", 1, 0))).toBe("image/gif");
    expect(detectImageType(bytes("GIF87a"))).toBe("image/gif");
    expect(detectImageType(bytes("RIFF", 0, 0, 0, 0, "WEBPVP8 "))).toBe("image/webp");
  });

  it("rejects everything else, whatever it is called", () => {
    expect(detectImageType(bytes("%PDF-1.7"))).toBeNull();
    expect(detectImageType(bytes("RIFF", 0, 0, 0, 0, "WAVE"))).toBeNull();
    expect(detectImageType(bytes())).toBeNull();
    expect(detectImageType(bytes(0x89, "PN"))).toBeNull();
  });
});
