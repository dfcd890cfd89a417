import { describe, expect, it } from "vitest";
import { checkWebhookAddress, isPrivateAddress, parseWebhookUrl } from "./webhook-address";

describe("webhook addresses", () => {
  it("tells private, loopback and reserved addresses from public ones, in IPv4 and IPv6", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "::", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "not an ip"]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it("refuses loopback and private hosts, by address and by name, unless allowed", async () => {
    for (const url of ["http://127.0.0.1:8080/hook", "http://[::1]/hook", "http://localhost/hook", "https://10.0.0.5/hook", "http://169.254.169.254/latest"]) {
      await expect(checkWebhookAddress(parseWebhookUrl(url), false), url).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(checkWebhookAddress(parseWebhookUrl(url), true), url).resolves.toBeUndefined();
    }
    await expect(checkWebhookAddress(parseWebhookUrl("http://93.184.216.34/hook"), false)).resolves.toBeUndefined();
  });

  it("refuses URLs that are not http(s), carry credentials or name port 0", () => {
    for (const url of ["ftp://example.com/x", "file:///etc/passwd", "not a url", "http://user:pw@example.com/", "https://example.com:0/hook"]) {
      expect(() => parseWebhookUrl(url), url).toThrow();
    }
  });
});
