import { describe, expect, it } from "vitest";
import { isHttpsRequest, isSameOriginRequest } from "../../server/same-origin";

function post(url: string, headers: Record<string, string>): Request {
  return new Request(url, { method: "POST", headers });
}

describe("isSameOriginRequest", () => {
  it("trusts the browser's Sec-Fetch-Site first", () => {
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { "sec-fetch-site": "same-origin" }))).toBe(true);
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { "sec-fetch-site": "none" }))).toBe(true);
    for (const site of ["same-site", "cross-site"]) {
      expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { "sec-fetch-site": site, origin: "http://svc:3000", host: "svc:3000" }))).toBe(false);
    }
  });

  it("otherwise needs an Origin naming the scheme, host and port the request was sent to (a proxy's X-Forwarded-Proto and -Host first)", () => {
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { origin: "http://svc:3000", host: "svc:3000" }))).toBe(true);
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { origin: "http://SVC:3000", host: "svc:3000" }))).toBe(true);
    const proxied = { "x-forwarded-host": "console.example.com", "x-forwarded-proto": "https" };
    expect(isSameOriginRequest(post("http://10.0.0.5:3000/api/trpc/x", { origin: "https://console.example.com", ...proxied }))).toBe(true);
    expect(isSameOriginRequest(post("http://10.0.0.5:3000/api/trpc/x", { origin: "https://console.example.com:443", ...proxied }))).toBe(true);
    // Same host, another scheme: another origin (an http: page must not act on the https: console, nor the reverse).
    expect(isSameOriginRequest(post("http://10.0.0.5:3000/api/trpc/x", { origin: "http://console.example.com", ...proxied }))).toBe(false);
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { origin: "https://svc:3000", host: "svc:3000" }))).toBe(false);
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { origin: "http://svc:3001", host: "svc:3000" }))).toBe(false);
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { origin: "null", host: "svc:3000" }))).toBe(false);
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { origin: "not a url", host: "svc:3000" }))).toBe(false);
    expect(isSameOriginRequest(post("http://svc:3000/api/trpc/x", { host: "svc:3000" }))).toBe(false);
  });
});

describe("isHttpsRequest", () => {
  it("reads the URL's scheme, or a proxy's X-Forwarded-Proto", () => {
    expect(isHttpsRequest(post("https://svc/api/trpc/x", {}))).toBe(true);
    expect(isHttpsRequest(post("http://svc/api/trpc/x", {}))).toBe(false);
    expect(isHttpsRequest(post("http://svc/api/trpc/x", { "x-forwarded-proto": "https" }))).toBe(true);
    expect(isHttpsRequest(post("http://svc/api/trpc/x", { "x-forwarded-proto": "https, http" }))).toBe(true);
    expect(isHttpsRequest(post("https://svc/api/trpc/x", { "x-forwarded-proto": "http" }))).toBe(false);
  });
});
