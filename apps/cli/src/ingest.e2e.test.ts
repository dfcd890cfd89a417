import { execFile, spawn } from "node:child_process";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { setTimeout as sleep } from "node:timers/promises";
import { findFreePort, waitFor } from "@svc/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IngestSummary } from "./commands/ingest";
import { makeDocx, makePdf } from "./testing/make-office-files";
import { promisify } from "node:util";
import { runSvc, SVC_ENTRY, useRunningSvc } from "./testing/run-svc";

const svc = useRunningSvc();
let workDir = "";
beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), "svc-ingest-"));
});
afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** `svc ingest … --json` against the running svc, with its own state file unless one is given. */
async function ingest(args: string[], { input, state = path.join(workDir, `state-${Math.random()}.json`) }: { input?: string; state?: string } = {}) {
  const run = await runSvc(["ingest", ...args, "--json", "--state", state], { env: svc.env, input });
  let summary: IngestSummary | undefined;
  try {
    summary = JSON.parse(run.stdout) as IngestSummary;
  } catch {
    throw new Error(`svc ingest printed no JSON summary (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { ...run, summary };
}

async function getDocument(id: string) {
  const response = await fetch(`${svc.apiUrl}/svc-api/ingestion/${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${svc.curatorKey}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { title: string; source: string; sections: { text: string; link: string | null }[]; indexing_status: string; cc_pair_ids: number[] };
}

function body(id: string, text: string) {
  return JSON.stringify({ document: { id, semantic_identifier: `Doc ${id}`, sections: [{ text }], metadata: {} } });
}

describe("svc ingest", () => {
  it("ingests a folder of every file type into a pair, waits until indexed, and skips it all on a rerun", async () => {
    const pair = await runSvc(["pairs", "create", "--name", "Shared drive", "--source", "file", "--access", "public"], { env: svc.env });
    expect(pair.code).toBe(0);
    const pairId = Number(pair.stdout.trim().split("\n").at(-1));

    const folder = path.join(workDir, "drive");
    await mkdir(path.join(folder, "notes"), { recursive: true });
    await mkdir(path.join(folder, ".git"));
    await writeFile(path.join(folder, "plain.txt"), "Lighthouse inventory: lamps, lenses, logbooks.");
    await writeFile(path.join(folder, "notes", "guide.md"), "# Keeper's guide\n\nWind the clockwork every four hours.");
    await writeFile(path.join(folder, "page.html"), "<html><head><title>Tide tables</title></head><body><p>High water at <b>noon</b>.</p></body></html>");
    await writeFile(path.join(folder, "config.json"), JSON.stringify({ beacon: "amber", range_nm: 18 }));
    await writeFile(path.join(folder, "ships.csv"), "ship,flag\nMarigold,NL\n");
    await writeFile(path.join(folder, "report.pdf"), makePdf("Quarterly report of the lighthouse keepers"));
    await writeFile(path.join(folder, "minutes.docx"), await makeDocx(["Minutes of the harbour committee", "Fog signal approved."]));
    await writeFile(path.join(folder, "photo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await writeFile(path.join(folder, ".git", "HEAD"), "ref: refs/heads/main\n");
    const state = path.join(workDir, "drive-state.json");

    const first = await ingest([folder, "--pair", String(pairId), "--wait", "--concurrency", "3"], { state });
    expect(first.code, first.stderr).toBe(0);
    expect(first.summary).toMatchObject({ sent: 7, created: 7, updated: 0, skipped_unchanged: 0, ignored_files: 1, failed: [] });
    expect(first.summary.indexing).toEqual({ indexed: 7, failed: [], still_pending: 0 });
    expect(first.summary.documents_per_second).toBeGreaterThan(0);

    const expected: Record<string, { text: string; title: string }> = {
      "plain.txt": { text: "Lighthouse inventory: lamps, lenses, logbooks.", title: "plain.txt" },
      "notes/guide.md": { text: "Wind the clockwork every four hours.", title: "Keeper's guide" },
      "page.html": { text: "High water at noon.", title: "Tide tables" },
      "config.json": { text: '"beacon":"amber"', title: "config.json" },
      "ships.csv": { text: "Marigold,NL", title: "ships.csv" },
      "report.pdf": { text: "Quarterly report of the lighthouse keepers", title: "report.pdf" },
      "minutes.docx": { text: "Fog signal approved.", title: "minutes.docx" },
    };
    for (const [id, { text, title }] of Object.entries(expected)) {
      const document = await getDocument(id);
      expect(document.sections[0]?.text, id).toContain(text);
      expect(document).toMatchObject({ title, source: "file", indexing_status: "indexed", cc_pair_ids: [pairId] });
    }
    expect((await getDocument("page.html")).sections[0]?.text).not.toContain("<");

    const rerun = await ingest([folder, "--pair", String(pairId)], { state });
    expect(rerun.code).toBe(0);
    expect(rerun.summary).toMatchObject({ sent: 0, skipped_unchanged: 7, failed: [] });

    await writeFile(path.join(folder, "plain.txt"), "Lighthouse inventory: lamps, lenses, logbooks, and a new foghorn.");
    const changed = await ingest([folder, "--pair", String(pairId)], { state });
    expect(changed.summary).toMatchObject({ sent: 1, created: 0, updated: 1, skipped_unchanged: 6 });
    expect((await getDocument("plain.txt")).sections[0]?.text).toContain("foghorn");

    const forced = await ingest([folder, "--pair", String(pairId), "--force"], { state });
    expect(forced.summary).toMatchObject({ sent: 7, updated: 7, skipped_unchanged: 0 });
  });

  it("reads .gz and extensionless text, skips empty files with a note, keeps an HTML page's main content, uses front matter titles, and links each file", async () => {
    const folder = path.join(workDir, "debian-doc");
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "changelog.gz"), gzipSync("svc (1.2) unstable; urgency=low\n  * Quieter foghorn.\n"));
    await writeFile(path.join(folder, "notes.md.gz"), gzipSync("# Packed notes\n\nCompressed markdown about buoys.\n"));
    await writeFile(path.join(folder, "copyright"), "Format: machine-readable\nLicense: MIT lighthouse terms\n");
    // Debian's own names: a capitalised suffix is part of the name, and the content decides.
    await writeFile(path.join(folder, "changelog.Debian.gz"), gzipSync("svc (1.2-1) unstable; urgency=medium\n  * Packaged the foghorn.\n"));
    await writeFile(path.join(folder, "README.Debian"), "Notes for Debian: the lamp runs as its own user.\n");
    await writeFile(path.join(folder, "site.css"), "body { color: red }\n");
    await writeFile(path.join(folder, "blob"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]));
    await writeFile(path.join(folder, "empty.md"), "");
    await writeFile(path.join(folder, "front.md"), '---\ntitle: "Harbour rules"\ndate: 2024-01-01\n---\n# Not the title\n\nMoor at berth nine.\n');
    await writeFile(
      path.join(folder, "manual.html"),
      "<html><head><title>Manual</title><style>.x{color:red}</style><script>var tracking = 1;</script></head><body>" +
        '<header>Site banner</header><nav><a href="up.html">Up</a> <img alt="home" src="home.png"> Home</nav>' +
        "<main><h1>Lamp care</h1><p>Trim the wick daily.</p></main><footer>Copyright footer</footer></body></html>",
    );
    // As DocBook writes a manual's pages (Valgrind's): navigation in tables of links, no nav element.
    await writeFile(
      path.join(folder, "quick-start.html"),
      '<html><head><title>Quick Start</title></head><body><div class="navheader"><table><tr>' +
        '<td><a href="index.html"><img src="left.png" alt="Prev"></a></td><td><a href="index.html"><img src="up.png" alt="Up"></a></td>' +
        '<td><a href="index.html"><img src="home.png" alt="Home"></a></td><th>Lighthouse Manual</th></tr></table></div>' +
        '<div class="article"><div class="sect1"><h2 class="title">1. Introduction</h2>' +
        "<p>The keepers wind the clockwork of the lamp at dusk, and trim its wick before the fog comes in from the sea.</p>" +
        "<p>The foghorn sounds twice a minute while the fog lasts, and the log records each hour of it.</p></div></div>" +
        '<div class="navfooter"><table><tr><td><a href="index.html">&lt;&lt;&#160;Lighthouse Manual</a></td><td><a href="index.html">Up</a></td>' +
        '<td><a href="manual.html">Keeper Handbook&#160;&gt;&gt;</a></td></tr><tr><td colspan="3"><a href="index.html">Home</a></td></tr></table></div></body></html>',
    );
    const state = path.join(workDir, "debian-state.json");

    const dryRun = await runSvc(["ingest", folder, "--dry-run", "--state", state], { env: svc.env });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toMatch(/^send +changelog\.gz/m);
    expect(dryRun.stdout).toMatch(/^skip +empty\.md +empty: no text$/m);
    expect(dryRun.stdout).toMatch(/^send +changelog\.Debian\.gz/m);
    expect(dryRun.stdout).toMatch(/^send +README\.Debian/m);
    expect(dryRun.stdout).toMatch(/^ignore +blob/m);
    expect(dryRun.stdout).toMatch(/^ignore +site\.css/m);
    expect(dryRun.stdout).toContain("Dry run: would send 8, skip 1, fail 0, ignore 2; nothing was sent.");
    expect((await fetch(`${svc.apiUrl}/svc-api/ingestion/changelog.gz`, { headers: { authorization: `Bearer ${svc.curatorKey}` } })).status).toBe(404);

    const run = await runSvc(["ingest", folder, "--link-prefix", "https://docs.example/pkg/", "--state", state], { env: svc.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Ingested 8 (8 new, 0 updated)");
    expect(run.stdout).toContain("Skipped 1 empty files (no text): empty.md.");
    expect(run.stdout).toContain("Ignored 2 files of other types: blob, site.css.");

    expect((await getDocument("changelog.gz")).sections[0]?.text).toContain("Quieter foghorn.");
    expect(await getDocument("notes.md.gz")).toMatchObject({ title: "Packed notes" });
    expect((await getDocument("copyright")).sections[0]?.text).toContain("MIT lighthouse terms");
    expect(await getDocument("changelog.Debian.gz")).toMatchObject({ title: "changelog.Debian.gz", metadata: { file_type: "txt" } });
    expect((await getDocument("changelog.Debian.gz")).sections[0]?.text).toContain("Packaged the foghorn.");
    expect((await getDocument("README.Debian")).sections[0]?.text).toContain("its own user");
    const front = await getDocument("front.md");
    expect(front).toMatchObject({ title: "Harbour rules" });
    expect(front.sections[0]?.text).not.toContain("title:");
    const manual = (await getDocument("manual.html")).sections[0];
    expect(manual?.text).toContain("Trim the wick daily.");
    for (const chrome of ["Site banner", "Up", "home", "Copyright footer", "tracking", "color:red"]) expect(manual?.text).not.toContain(chrome);
    expect(manual?.link).toBe("https://docs.example/pkg/manual.html");
    const quickStart = await getDocument("quick-start.html");
    expect(quickStart.title).toBe("Quick Start");
    expect(quickStart.sections[0]?.text).toContain("trim its wick before the fog");
    expect(quickStart.sections[0]?.text).toContain("twice a minute");
    for (const chrome of ["Prev", "Up", "Home", "Lighthouse Manual", "Keeper Handbook", ".png"]) expect(quickStart.sections[0]?.text).not.toContain(chrome);

    const fileLinked = await ingest([folder, "--id-prefix", "local/"]);
    expect(fileLinked.code).toBe(0);
    expect((await getDocument("local/copyright")).sections[0]?.link).toBe(pathToFileURL(path.join(folder, "copyright")).href);
  });

  it("ignores a resume state recorded against another svc instance behind the same URL, saying so, and names ignored files", async () => {
    const folder = path.join(workDir, "reset");
    await mkdir(folder, { recursive: true });
    for (const name of ["a.txt", "b.txt"]) await writeFile(path.join(folder, name), `Reset test ${name}`);
    for (let index = 0; index < 7; index++) await writeFile(path.join(folder, `image-${index}.png`), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const state = path.join(workDir, "reset-state.json");
    const first = await ingest([folder, "--id-prefix", "reset/"], { state });
    expect(first.summary).toMatchObject({ sent: 2 });

    // The same URL, another database: as after a reset, the state's instance id no longer matches.
    const recorded = JSON.parse(await readFile(state, "utf8")) as { instances: Record<string, unknown>; urls: Record<string, string> };
    const otherId = "00000000-0000-4000-8000-000000000000";
    const [realId] = Object.keys(recorded.instances);
    recorded.instances = { [otherId]: recorded.instances[realId ?? ""] };
    recorded.urls[svc.apiUrl] = otherId;
    await writeFile(state, JSON.stringify(recorded));

    const rerun = await runSvc(["ingest", folder, "--id-prefix", "reset/", "--state", state], { env: svc.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`was recorded against svc instance ${otherId} (2 documents); this is ${realId ?? ""}`);
    expect(rerun.stdout).toContain("Ingested 2 (0 new, 2 updated), skipped 0 unchanged");
    expect(rerun.stdout).toContain("Ignored 7 files of other types: image-0.png, image-1.png, image-2.png, image-3.png, image-4.png, and 2 more (--verbose names them).");

    const verbose = await runSvc(["ingest", folder, "--id-prefix", "reset/", "--state", state, "--verbose"], { env: svc.env });
    expect(verbose.stdout).toContain("skipped 2 unchanged");
    expect(verbose.stderr).not.toContain("recorded against");
    expect(verbose.stdout).toContain("image-5.png, image-6.png.");
  });

  it("prints the names of skipped and ignored files with their terminal controls escaped, each message on one line", async () => {
    const folder = path.join(workDir, "hostile-names");
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "kept.txt"), "A plain file.");
    await writeFile(path.join(folder, "\u001b[31mred\r\nforged.md"), "");
    await writeFile(path.join(folder, "\u001b]0;pwned\u0007.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const run = await runSvc(["ingest", folder, "--id-prefix", "hostile/", "--state", path.join(workDir, "hostile-state.json")], { env: svc.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Skipped 1 empty files (no text): \\e[31mred\\r\\nforged.md.\n");
    expect(run.stdout).toContain("Ignored 1 files of other types: \\e]0;pwned\\u0007.png.\n");
    expect([...run.stdout, ...run.stderr].filter((char) => "\u001b\r\u0007".includes(char))).toEqual([]);
  });

  it("says once that a pair is paused while --wait waits on it, and goes on waiting until it is resumed", { timeout: 240_000 }, async () => {
    const pair = await runSvc(["pairs", "create", "--name", "Night shift", "--source", "file", "--access", "public"], { env: svc.env });
    const pairId = pair.stdout.trim().split("\n").at(-1)!;
    expect((await runSvc(["pairs", "pause", pairId], { env: svc.env })).code).toBe(0);
    const folder = path.join(workDir, "night-shift");
    await mkdir(folder);
    await writeFile(path.join(folder, "one.txt"), "The lamp burned all night.");
    await writeFile(path.join(folder, "two.txt"), "Relieved at six.");

    const child = spawn(process.execPath, [SVC_ENTRY, "ingest", folder, "--pair", pairId, "--id-prefix", "night/", "--wait", "--json", "--state", path.join(workDir, "paused-state.json")], {
      env: { ...process.env, ...svc.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    const hint = `Pair ${pairId} (Night shift) is paused: 2 documents wait for \`svc pairs resume ${pairId}\`; still waiting (--wait-timeout 600 s).`;
    await waitFor("the paused-pair hint", () => (stderr.includes(hint) ? true : undefined), { timeoutMs: 30_000, describe: () => stderr });
    // Still waiting, across more than one look at the pairs (every 5 s), and said once.
    await sleep(6_000);
    expect(child.exitCode).toBeNull();
    expect(await getDocument("night/one.txt")).toMatchObject({ indexing_status: "queued" });

    expect((await runSvc(["pairs", "resume", pairId], { env: svc.env })).code).toBe(0);
    expect(await exited).toBe(0);
    expect(stderr.split(hint)).toHaveLength(2);
    expect((JSON.parse(stdout) as IngestSummary).indexing).toEqual({ indexed: 2, failed: [], still_pending: 0 });
  });

  it("ingests a .jsonl file and JSONL on stdin, and prints a table when not asked for JSON", async () => {
    const file = path.join(workDir, "bodies.jsonl");
    await writeFile(file, [body("jsonl-1", "First line body."), "", body("jsonl-2", "Second line body.")].join("\n") + "\n");
    const fromFile = await ingest([file, "--wait"]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.summary).toMatchObject({ sent: 2, created: 2, failed: [], indexing: { indexed: 2, still_pending: 0 } });
    expect((await getDocument("jsonl-2")).sections[0]?.text).toBe("Second line body.");

    const fromStdin = await runSvc(["ingest", "-", "--state", path.join(workDir, "stdin-state.json")], {
      env: svc.env,
      input: `${body("stdin-1", "Piped in.")}\n${body("jsonl-1", "First line body, edited.")}\n`,
    });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toMatch(/^Ingested 2 \(1 new, 1 updated\), skipped 0 unchanged, failed 0, in [\d.]+ s \([\d.]+ documents\/s\)\.$/m);
    expect((await getDocument("stdin-1")).sections[0]?.text).toBe("Piped in.");

    // On a terminal (script(1) gives it one) a progress bar is drawn on stderr.
    const command = [process.execPath, SVC_ENTRY, "ingest", file, "--force", "--state", path.join(workDir, "tty-state.json")].map((arg) => `'${arg}'`).join(" ");
    const onTerminal = await promisify(execFile)("script", ["-qec", command, "/dev/null"], { env: { ...process.env, ...svc.env } });
    expect(onTerminal.stdout).toMatch(/Ingesting \[[█░]+\] 100% \| 2\/2/);
    expect(onTerminal.stdout).toContain("Ingested 2 (0 new, 2 updated)");
  });

  it("--wait learns from svc's event stream when documents are indexed or failed: no request per document", async () => {
    const file = path.join(workDir, "streamed.jsonl");
    await writeFile(file, [body("streamed-1", "One."), body("streamed-2", "Two."), body("streamed-3", "Three.")].join("\n"));
    const requests: string[] = [];
    await withProxy(
      (incoming) => {
        requests.push(`${incoming.method} ${incoming.url}`);
        return false;
      },
      async (apiUrl) => {
        const run = await ingest([file, "--url", apiUrl, "--wait"]);
        expect(run.code, run.stderr).toBe(0);
        expect(run.summary.indexing).toEqual({ indexed: 3, failed: [], still_pending: 0 });
      },
    );
    expect(requests.filter((line) => line.startsWith("GET /api/svc-api/events"))).toHaveLength(1);
    expect(requests.filter((line) => line.startsWith("GET /api/svc-api/ingestion/"))).toEqual([]);
    for (const id of ["streamed-1", "streamed-2", "streamed-3"]) expect(await getDocument(id)).toMatchObject({ indexing_status: "indexed" });
  });

  it("reports each failure with its reason and exits 1, having ingested the rest", async () => {
    const file = path.join(workDir, "mixed.jsonl");
    const invalid = JSON.stringify({ document: { id: "no-name", sections: [{ text: "x" }], metadata: {} } });
    await writeFile(file, [body("good-1", "Fine."), "{not json", invalid, JSON.stringify([1, 2])].join("\n"));
    const run = await ingest([file]);
    expect(run.code).toBe(1);
    expect(run.summary.sent).toBe(1);
    expect(run.summary.failed).toEqual([
      { item: "line 2", reason: "not valid JSON" },
      { item: "line 3", reason: "422 body.document.semantic_identifier: Field required" },
      { item: "line 4", reason: 'not an ingestion body (an object with a "document")' },
    ]);
    await getDocument("good-1");

    const table = await runSvc(["ingest", file, "--state", path.join(workDir, "mixed-table.json")], { env: svc.env });
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^ITEM +FAILURE +REASON$/m);
    expect(table.stdout).toMatch(/^line 3 +not ingested +422 body\.document\.semantic_identifier: Field required$/m);

    // Key and server are checked before anything is read or sent: the reason, at once, and exit 1.
    const wrongKey = await runSvc(["ingest", file, "--key", "svc_wrong", "--state", path.join(workDir, "wrong-key.json")], { env: svc.env });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain("did not accept the key or could not be reached: 401");
    expect(wrongKey.stdout).toBe("");

    // A port found free and left closed: nothing answers there.
    const closedPort = await findFreePort();
    const unreachable = await runSvc(["ingest", file, "--url", `http://127.0.0.1:${closedPort}/api`, "--retries", "2", "--state", path.join(workDir, "down.json")], {
      env: svc.env,
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain("could not be reached: network error: ECONNREFUSED (after 2 tries)");
  });

  it("retries a 429 after the server's Retry-After, and a dropped connection, until the document is in", async () => {
    // A proxy in front of the running svc: the first request gets 429 with Retry-After: 1, the second
    // loses its connection, the rest pass through to svc.
    const seen: number[] = [];
    await withProxy(
      (incoming, outgoing) => {
        seen.push(Date.now());
        if (seen.length === 1) {
          outgoing.writeHead(429, { "retry-after": "1", "content-type": "application/json" });
          outgoing.end(JSON.stringify({ detail: "Too many requests" }));
          return true;
        }
        if (seen.length === 2) incoming.socket.destroy();
        return seen.length === 2;
      },
      async (apiUrl) => {
        const run = await ingest(["-", "--url", apiUrl, "--concurrency", "1"], { input: body("retried-1", "Arrived in the end.") });
        expect(run.code, run.stderr).toBe(0);
        expect(run.summary).toMatchObject({ sent: 1, failed: [] });
        // The first call (the key and server check) was retried twice, then the batch went through.
        expect(seen).toHaveLength(4);
        expect((seen[1] ?? 0) - (seen[0] ?? 0)).toBeGreaterThanOrEqual(950);
        expect((await getDocument("retried-1")).sections[0]?.text).toBe("Arrived in the end.");
      },
    );
  });

  it("sends the documents in batches, and reports the bad items of a batch with their reasons while storing the good ones", async () => {
    const file = path.join(workDir, "batch.jsonl");
    const noName = JSON.stringify({ document: { id: "batch-no-name", sections: [{ text: "x" }], metadata: {} } });
    const noPair = JSON.stringify({ document: { id: "batch-no-pair", semantic_identifier: "No pair", sections: [{ text: "x" }], metadata: {} }, cc_pair_id: 999_999 });
    await writeFile(file, [body("batch-1", "First."), body("batch-2", "Second."), noName, noPair, body("batch-3", "Third.")].join("\n"));
    const state = path.join(workDir, "batch-state.json");
    const posts: string[] = [];
    await withProxy(
      (incoming) => {
        if (incoming.method === "POST") posts.push(incoming.url ?? "");
        return false;
      },
      async (apiUrl) => {
        const run = await ingest([file, "--url", apiUrl, "--batch-size", "3"], { state });
        expect(run.code).toBe(1);
        expect(run.summary).toMatchObject({ sent: 3, created: 3, skipped_unchanged: 0 });
        expect(run.summary.failed).toEqual([
          { item: "line 3", reason: "422 body.document.semantic_identifier: Field required" },
          { item: "line 4", reason: "400 Connector-Credential Pair specified does not exist" },
        ]);
        // Five documents, three per request: two requests.
        expect(posts).toEqual(["/api/svc-api/ingestion/batch", "/api/svc-api/ingestion/batch"]);
        for (const [id, text] of [["batch-1", "First."], ["batch-2", "Second."], ["batch-3", "Third."]] as const) {
          expect((await getDocument(id)).sections[0]?.text).toBe(text);
        }

        // A rerun skips what was stored and tries the failed items again.
        const rerun = await ingest([file, "--url", apiUrl, "--batch-size", "3"], { state });
        expect(rerun.code).toBe(1);
        expect(rerun.summary).toMatchObject({ sent: 0, skipped_unchanged: 3 });
        expect(rerun.summary.failed.map(({ item }) => item)).toEqual(["line 3", "line 4"]);
      },
    );
  });

  it("sends a batch the server finds too large (413) again in halves, until every document is in", async () => {
    const file = path.join(workDir, "halves.jsonl");
    await writeFile(file, [1, 2, 3].map((n) => body(`halves-${n}`, `Half ${n}.`)).join("\n"));
    // The first request is refused as too large, as a server with a small SVC_MAX_BODY_BYTES would.
    const posts: string[] = [];
    await withProxy(
      (incoming, outgoing) => {
        if (incoming.method !== "POST") return false;
        posts.push(incoming.url ?? "");
        if (posts.length > 1) return false;
        outgoing.writeHead(413, { "content-type": "application/json" });
        outgoing.end(JSON.stringify({ detail: "Request body too large" }));
        return true;
      },
      async (apiUrl) => {
        const run = await ingest([file, "--url", apiUrl]);
        expect(run.code, run.stderr).toBe(0);
        expect(run.summary).toMatchObject({ sent: 3, created: 3, failed: [] });
        // Three documents, then two and one.
        expect(posts).toHaveLength(3);
      },
    );
    for (const n of [1, 2, 3]) expect((await getDocument(`halves-${n}`)).sections[0]?.text).toBe(`Half ${n}.`);
  });

  it("sends a batch whose items hold more errors than one answer lists (422) again in halves, reporting each", async () => {
    // 150 documents without a name: 150 errors, past the 100 one answer lists, so the server refuses the whole batch.
    const file = path.join(workDir, "many-invalid.jsonl");
    const invalid = (n: number) => JSON.stringify({ document: { id: `unnamed-${n}`, sections: [{ text: "x" }], metadata: {} } });
    await writeFile(file, [body("among-invalid", "Fine."), ...Array.from({ length: 150 }, (_, n) => invalid(n))].join("\n"));
    const run = await ingest([file]);
    expect(run.code).toBe(1);
    expect(run.summary.sent).toBe(1);
    expect(run.summary.failed).toHaveLength(150);
    expect(run.summary.failed[0]).toEqual({ item: "line 2", reason: "422 body.document.semantic_identifier: Field required" });
    await getDocument("among-invalid");
  });
});

/**
 * Runs `use` with the API root of a proxy in front of the running svc. `intercept` sees each request
 * first and returns true when it has answered (or dropped) it itself; the others go through to svc.
 */
async function withProxy(intercept: (incoming: IncomingMessage, outgoing: ServerResponse) => boolean, use: (apiUrl: string) => Promise<void>) {
  const proxy = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (intercept(incoming, outgoing)) return;
    const target = new URL(svc.apiUrl);
    const forwarded = request(
      { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  try {
    await use(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`);
  } finally {
    await new Promise((resolve) => proxy.close(resolve));
  }
}

describe("svc index rebuild --wait", () => {
  it("waits for the worker to finish the rebuild and reports the new generation", async () => {
    await ingest(["-", "--wait"], { input: [1, 2, 3].map((n) => body(`rebuild-${n}`, `Rebuild me ${n}.`)).join("\n") });
    const run = await runSvc(["index", "rebuild", "--chunk-tokens", "256", "--wait", "--json"], { env: svc.env });
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(run.stdout) as { status: string; current: { generation_id: number; chunk_token_limit: number }; last_rebuild: { status: string; docs_failed: number } };
    expect(status).toMatchObject({ status: "idle", current: { chunk_token_limit: 256 }, last_rebuild: { status: "current", docs_failed: 0 } });
  });
});
