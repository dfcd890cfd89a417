import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseResidentMemory, residentBytesOfMappings } from "./resident-memory";

describe("parseResidentMemory", () => {
  it("reads the anonymous, file and shared parts of RSS in bytes", () => {
    const status = "Name:\tnode\nVmRSS:\t  230000 kB\nRssAnon:\t  110000 kB\nRssFile:\t  119000 kB\nRssShmem:\t    1000 kB\nThreads:\t17\n";
    expect(parseResidentMemory(status)).toEqual({ anonymous: 110_000 * 1024, file: 119_000 * 1024, shmem: 1000 * 1024 });
  });

  it("adds up to this process's VmRSS", () => {
    const status = readFileSync("/proc/self/status", "utf8");
    const { anonymous, file, shmem } = parseResidentMemory(status);
    const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
    expect(anonymous).toBeGreaterThan(0);
    expect(file).toBeGreaterThan(0);
    expect(anonymous + file + shmem).toBe(rss);
  });

  it("reads zeros from a text without the fields", () => {
    expect(parseResidentMemory("")).toEqual({ anonymous: 0, file: 0, shmem: 0 });
  });
});

describe("residentBytesOfMappings", () => {
  const smaps = [
    "55d0c0000000-55d0c2000000 r-xp 00000000 08:01 1234    /usr/bin/node",
    "Size:              32768 kB",
    "Rss:               20000 kB",
    "7f0000000000-7f0001000000 r-xp 00000000 08:01 5678    /app/node_modules/@lancedb/lancedb-linux-x64-gnu/lancedb.linux-x64-gnu.node",
    "Rss:               70000 kB",
    "Pss:               30000 kB",
    "7f0001000000-7f0001100000 r--p 01000000 08:01 5678    /app/node_modules/@lancedb/lancedb-linux-x64-gnu/lancedb.linux-x64-gnu.node",
    "Rss:                1000 kB",
    "7f0002000000-7f0003000000 rw-p 00000000 00:00 0 ",
    "Rss:               50000 kB",
    "VmFlags: rd wr mr mw me ac",
  ].join("\n");

  it("sums the Rss of the mappings of matching files only", () => {
    expect(residentBytesOfMappings(smaps, (path) => path.endsWith(".node"))).toBe(71_000 * 1024);
    expect(residentBytesOfMappings(smaps, (path) => path === "/usr/bin/node")).toBe(20_000 * 1024);
    expect(residentBytesOfMappings(smaps, (path) => path === "")).toBe(50_000 * 1024);
  });
});
