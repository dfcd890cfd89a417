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
      expect(listed.stdout).toContain("pipeline");
      expect(listed.stdout).toContain("active");

      await run(process.execPath, [svcEntry, "keys", "revoke", String(stored.id)], { env });
      expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: stored.id } })).revokedAt).not.toBeNull();

      await expect(run(process.execPath, [svcEntry, "keys", "create", "--name", "x", "--role", "owner"], { env })).rejects.toThrow();
    } finally {
      await database.db.$disconnect();
      await database.drop();
    }
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
