import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDatabase, findFreePort, waitFor, type WaitForOptions } from "@svc/db/testing";
import { afterAll, describe, expect, it } from "vitest";

const svcEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/svc.js");
const run = promisify(execFile);

/** A starting server refuses connections until it listens, and the first start creates the database. */
const SERVER_START: WaitForOptions = { timeoutMs: 60_000, retryOnError: true };

describe("svc keys", () => {
  it("creates, lists and revokes keys; create prints the key alone on the last line", async () => {
    const database = await createTestDatabase();
    try {
      const env = { ...process.env, DATABASE_URL: database.databaseUrl };
      const created = await run(process.execPath, [svcEntry, "keys", "create", "--name", "pipeline", "--role", "curator"], { env });
      const key = created.stdout.trimEnd().split("\n").at(-1) ?? "";
      expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43,}$/);
      const stored = await database.db.apiKey.findFirstOrThrow({ where: { name: "pipeline" } });
      expect(stored.role).toBe("curator");
      expect(stored.hashedKey).not.toContain(key.slice(4));

      const listed = await run(process.execPath, [svcEntry, "keys", "list"], { env });
      const [header, row] = listed.stdout.trimEnd().split("\n");
      expect(header?.split(/\s{2,}/)).toEqual(["ID", "PREFIX", "ROLE", "STATE", "SCOPE", "LAST USED", "NAME"]);
      expect(row?.split(/\s{2,}/)).toEqual([String(stored.id), `${stored.displayPrefix}…`, "curator", "active", "all", "-", "pipeline"]);
      const listedJson = JSON.parse((await run(process.execPath, [svcEntry, "keys", "list", "--json"], { env })).stdout) as unknown;
      expect(listedJson).toEqual([
        expect.objectContaining({ id: stored.id, name: "pipeline", role: "curator", cc_pair_ids: [], revoked_at: null }),
      ]);
      expect(JSON.stringify(listedJson)).not.toContain(key.slice(4));

      await run(process.execPath, [svcEntry, "keys", "revoke", String(stored.id)], { env });
      expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: stored.id } })).revokedAt).not.toBeNull();

      await expect(run(process.execPath, [svcEntry, "keys", "create", "--name", "x", "--role", "owner"], { env })).rejects.toThrow();
    } finally {
      await database.db.$disconnect();
      await database.drop();
    }
  });
});

describe("svc's command line", () => {
  /** The built CLI's exit code and output, whatever the code (no database: none of these reach one). */
  async function exitOf(...args: string[]) {
    const env: NodeJS.ProcessEnv = { ...process.env, SVC_API_KEY: "" };
    return run(process.execPath, [svcEntry, ...args], { env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (failed: { code: number; stdout: string; stderr: string }) => failed,
    );
  }

  it("answers --help and --version with exit 0, and wrong usage with exit 2 and a hint", async () => {
    const help = await exitOf("--help");
    expect(help.code).toBe(0);
    for (const command of ["start", "keys", "pairs", "index", "ingest", "webhooks"]) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    expect((await exitOf("ingest", "--help")).stdout).toContain("--concurrency <n>");
    expect((await exitOf("keys", "create", "--help")).code).toBe(0);

    const version = await exitOf("--version");
    expect(version).toMatchObject({ code: 0, stdout: "0.1.0\n" });

    const bare = await exitOf();
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("Usage: svc");
    const unknown = await exitOf("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    expect(unknown.stderr).toContain("svc --help");
    expect((await exitOf("keys", "create", "--name", "x")).code).toBe(2);
    expect((await exitOf("ingest")).stderr).toContain("missing required argument 'path'");
    const noKey = await exitOf("ingest", ".");
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("needs an API key");
    expect((await exitOf("ingest", "--key", "k", "--concurrency", "0", ".")).code).toBe(2);
    const bigBatch = await exitOf("ingest", "--key", "k", "--batch-size", "1001", ".");
    expect(bigBatch.code).toBe(2);
    expect(bigBatch.stderr).toContain("--batch-size: at most 1000 documents per request");
    const badUrl = await run(process.execPath, [svcEntry, "ingest", "--key", "k", "."], { env: { ...process.env, SVC_URL: "not a url" } }).catch(
      (failed: { code: number; stderr: string }) => failed,
    );
    expect(badUrl).toMatchObject({ code: 2, stderr: expect.stringContaining("Invalid environment: SVC_URL") as unknown });
  });

  it("runs as `pnpm svc …` with nothing but the command's own output", async () => {
    const root = path.resolve(path.dirname(svcEntry), "../../..");
    const viaPnpm = await run("pnpm", ["svc", "--version"], { cwd: root, env: { ...process.env, SVC_API_KEY: "" } });
    expect(viaPnpm.stdout).toBe("0.1.0\n");
    // No pnpm or turbo chatter; one line only if the sources changed since the last build.
    expect(viaPnpm.stderr).toMatch(/^(Building the svc CLI \(its sources changed\)…\n)?$/);
    const failing = await run("pnpm", ["svc", "keys", "revoke", "x"], { cwd: root, env: process.env }).catch((failed: { code: number; stderr: string }) => failed);
    expect(failing).toMatchObject({ code: 2 });
    // The command's message and hint, and nothing from pnpm (no ELIFECYCLE line).
    expect(failing.stderr.split("\n").filter((line) => line !== "")).toEqual([
      `error: command-argument value 'x' is invalid for argument 'id'. Not a positive integer: "x".`,
      "(svc --help shows the commands; svc COMMAND --help their options)",
    ]);
  });
});

describe("svc start on the embedded database", () => {
  const children: ChildProcess[] = [];
  let dataDir = "";
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  function start(port: number, pgPort: number) {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SVC_DATA_DIR: dataDir, SVC_EMBEDDED_PG_PORT: String(pgPort) };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [svcEntry, "start"], { env, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    return { child, output: () => output };
  }

  async function stop(child: ChildProcess) {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    return exited;
  }

  it("serves the production build, prints a first admin key once, and keeps data across a restart", async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "svc-start-"));
    // As root, the embedded server runs as the `postgres` user, which must be able to reach it.
    await chmod(dataDir, 0o755);
    const [port, pgPort] = [await findFreePort(), await findFreePort()];
    const endpoint = `http://127.0.0.1:${port}/api/svc-api/ingestion`;
    const body = JSON.stringify({
      document: { id: "readme-example", semantic_identifier: "Employee handbook", sections: [{ text: "Holidays." }], metadata: {} },
    });

    const first = start(port, pgPort);
    const key = await waitFor("the first admin key", () => /^\s+(svc_\S+)$/m.exec(first.output())?.[1], {
      ...SERVER_START,
      describe: first.output,
    });
    const post = (bearer: string) =>
      fetch(endpoint, { method: "POST", body, headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" } });
    /** The first 200 to the POST: the (re)started web server is up and still knows the key. */
    const accepted = (what: string) =>
      waitFor(
        what,
        async () => {
          const response = await post(key);
          return response.status === 200 ? response : undefined;
        },
        SERVER_START,
      );
    const created = await accepted("the web server");
    expect(await created.json()).toEqual({ document_id: "readme-example", already_existed: false });
    const unauthorized = await post("svc_wrong");
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("www-authenticate")).toBe("Bearer");
    expect(await stop(first.child)).toBe(0);

    const second = start(port, pgPort);
    const updated = await accepted("the restarted web server");
    expect(await updated.json()).toEqual({ document_id: "readme-example", already_existed: true });
    expect(second.output()).not.toMatch(/admin key was created/);
    expect(await stop(second.child)).toBe(0);
  }, 180_000);
});
