import { describe, expect, it } from "vitest";
import { ownerDisplayName } from "./basic-expert-info";

describe("ownerDisplayName", () => {
  it("prefers first, middle and last name", () => {
    expect(
      ownerDisplayName({ first_name: "Ada", middle_initial: "K", last_name: "Lovelace", display_name: "ada", email: "a@x" }),
    ).toBe("Ada K. Lovelace");
  });

  it("leaves the middle initial out when there is none", () => {
    expect(ownerDisplayName({ first_name: "Ada", last_name: "Lovelace", display_name: "ada" })).toBe("Ada Lovelace");
    expect(ownerDisplayName({ first_name: "Ada", middle_initial: " ", last_name: "Lovelace" })).toBe("Ada Lovelace");
  });

  it("keeps a middle initial that already has its period, and names as given", () => {
    expect(ownerDisplayName({ first_name: "mary", middle_initial: "J.", last_name: "McDonald" })).toBe("mary J. McDonald");
  });

  it("falls back to the display name without both names", () => {
    expect(ownerDisplayName({ first_name: "Ada", display_name: "Countess", email: "a@x" })).toBe("Countess");
    expect(ownerDisplayName({ last_name: "Lovelace", display_name: "Countess" })).toBe("Countess");
  });

  it("then to the email", () => {
    expect(ownerDisplayName({ first_name: "Ada", email: "ada@example.com" })).toBe("ada@example.com");
    expect(ownerDisplayName({ display_name: "", email: "ada@example.com" })).toBe("ada@example.com");
  });

  it("then to the first name alone", () => {
    expect(ownerDisplayName({ first_name: "Ada", display_name: null, email: null })).toBe("Ada");
  });

  it("is null when nothing usable is known", () => {
    expect(ownerDisplayName({})).toBeNull();
    expect(ownerDisplayName({ last_name: "Lovelace" })).toBeNull();
    expect(ownerDisplayName({ first_name: "  ", email: "" })).toBeNull();
  });
});
