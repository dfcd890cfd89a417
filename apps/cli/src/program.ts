import { Argument, Command, CommanderError, Option } from "commander";
import {
  AccessTypeSchema,
  ApiKeyRoleSchema,
  DocumentSourceSchema,
  EventTypeSchema,
  MAX_INGESTION_BATCH_SIZE,
  type AccessType,
  type ApiKeyRole,
  type DocumentSource,
  type EventType,
} from "@svc/schema";
import packageJson from "../package.json" with { type: "json" };
import { parsePositiveInt, UsageError } from "./cli-error";
import { escapeTerminalText } from "./output/terminal-text";
import type { IngestOptions } from "./commands/ingest";
import type { Part } from "./commands/start";
import { cliEnv } from "./env";
import type { DatabaseContext } from "./with-database";

// The commands' modules are imported when a command runs, not here: the database client, pg-boss
// and the search index take a second or more to load, which `svc --help` and `svc ingest` never need.

/** Added by `svc start` to the command line of the supervisor it starts; not for users. */
const SUPERVISOR_FLAG = "--as-supervisor";

/** Exit codes: 0 done, 1 the command ran and failed, 2 the command line was wrong. */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** Runs a database command; the client and its module are loaded only then. */
async function withDatabase(work: (context: DatabaseContext) => Promise<void>): Promise<void> {
  return (await import("./with-database")).withDatabase(work);
}

function jsonOption(): Option {
  return new Option("--json", "print JSON instead of a table");
}

/** A mandatory option that takes one of `choices` (a zod enum's options), listed by --help. */
function choiceOption(flags: string, description: string, choices: readonly string[]): Option {
  return new Option(flags, description).choices(choices).makeOptionMandatory();
}

/** `<noun> create`: what every create command takes, a required `--name` and the noun's choices. */
function createCommand(parent: Command, description: string, nameDescription: string, choices: Option[]): Command {
  const command = parent.command("create").description(description).requiredOption("--name <name>", nameDescription);
  for (const choice of choices) command.addOption(choice);
  return command;
}

function buildProgram(): Command {
  const program = new Command("svc")
    .description("svc: document ingestion and indexing")
    .version(packageJson.version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .showHelpAfterError("(svc --help shows the commands; svc COMMAND --help their options)")
    .addHelpText(
      "after",
      "\nWithout DATABASE_URL, keys/pairs/index use the embedded PostgreSQL (a running `svc start`'s, or one started for the command).\n" +
        "Exit codes: 0 done, 1 failed, 2 wrong usage.",
    );

  program
    .command("start")
    .description("start the database (embedded unless DATABASE_URL is set), web, worker and index maintenance; restarts a part that dies, stops in order on Ctrl+C/SIGTERM")
    .addArgument(new Argument("[part]", "web, worker or maintenance: run one part alone against DATABASE_URL").choices(["web", "worker", "maintenance"]))
    .addOption(new Option(SUPERVISOR_FLAG).hideHelp())
    .action((part: Part | undefined, options: { asSupervisor?: boolean }) =>
      import("./commands/start").then(({ runStartCommand }) => runStartCommand(cliEnv(), { part: part ?? "all", supervising: options.asSupervisor === true })),
    );

  const keys = program.command("keys").description("API keys");
  createCommand(keys, "create a key; it is printed alone on the last line of stdout, once", "what the key is for", [
    choiceOption("--role <role>", "what it may do", ApiKeyRoleSchema.options),
  ])
    .option("--scope <ids>", "limit it to these pairs (comma-separated ids)", (text: string) => text.split(",").map((id) => parsePositiveInt(id.trim())))
    .action((options: { name: string; role: ApiKeyRole; scope?: number[] }) => withDatabase(async ({ db }) => (await import("./commands/keys")).createKey(db, options)));
  keys
    .command("list")
    .description("list keys (never the keys themselves)")
    .addOption(jsonOption())
    .action((options: { json?: boolean }) => withDatabase(async ({ db }) => (await import("./commands/keys")).listKeys(db, options)));
  keys
    .command("revoke")
    .description("revoke a key now, everywhere")
    .argument("<id>", "the key's id", parsePositiveInt)
    .action((id: number) => withDatabase(async ({ db }) => (await import("./commands/keys")).revokeKey(db, id)));

  const pairs = program.command("pairs").description("connector-credential pairs");
  createCommand(pairs, "create a pair; its id is printed alone on the last line of stdout", "the pair's name", [
    choiceOption("--source <source>", "the document source", DocumentSourceSchema.options),
    choiceOption("--access <access>", "who may see its documents", AccessTypeSchema.options),
  ])
    .action((options: { name: string; source: DocumentSource; access: AccessType }) => withDatabase(async (context) => (await import("./commands/pairs")).createPair(context, options)));
  pairs
    .command("list")
    .description("list pairs with their status, access, documents indexed and last attempt")
    .addOption(jsonOption())
    .action((options: { json?: boolean }) => withDatabase(async (context) => (await import("./commands/pairs")).listPairs(context, options)));
  for (const [name, paused, description] of [
    ["pause", true, "pause a pair: it still accepts documents, their indexing waits"],
    ["resume", false, "resume a paused pair"],
  ] as const) {
    pairs
      .command(name)
      .description(description)
      .argument("<id>", "the pair's id", parsePositiveInt)
      .action((id: number) => withDatabase(async (context) => (await import("./commands/pairs")).setPairPaused(context, id, paused)));
  }
  pairs
    .command("delete")
    .description("mark a pair DELETING; the worker removes it and its documents")
    .argument("<id>", "the pair's id", parsePositiveInt)
    .action((id: number) => withDatabase(async (context) => (await import("./commands/pairs")).deletePair(context, id)));

  const index = program.command("index").description("the search index");
  index
    .command("status")
    .description("the generation search reads, the rebuild in progress and the last one")
    .addOption(jsonOption())
    .action((options: { json?: boolean }) => withDatabase(async (context) => (await import("./commands/search-index")).showIndexStatus(context, options)));
  index
    .command("rebuild")
    .description("rebuild the search index (the worker builds it in the background)")
    .option("--chunk-tokens <n>", "chunk size of the new index, 128–8192 tokens")
    .option("--text-search-config <name>", "PostgreSQL text-search configuration (english, simple, …)")
    .option("--wait", "wait until the rebuild ends, with a progress bar; exit 1 if it was canceled or documents failed")
    .addOption(jsonOption())
    .action((options: { chunkTokens?: string; textSearchConfig?: string; wait?: boolean; json?: boolean }) =>
      withDatabase(async (context) => (await import("./commands/search-index")).rebuildIndex(context, options)),
    );
  index
    .command("cancel")
    .description("cancel the running rebuild")
    .addOption(jsonOption())
    .action((options: { json?: boolean }) => withDatabase(async (context) => (await import("./commands/search-index")).cancelRebuild(context, options)));

  program
    .command("ingest")
    .description("send documents to a running svc over its REST API: a folder, a .jsonl file of ingestion bodies, or - (JSONL on stdin)")
    .argument("<path>", "folder (txt, md, html, json, csv, pdf, docx files), .jsonl file, or -")
    .option("--url <url>", "the API root of svc (env SVC_URL; default http://localhost:$PORT/api)")
    .option("--key <key>", "an admin or curator API key (env SVC_API_KEY, which keeps it out of the process list)")
    .option("--pair <id>", "attach every document to this connector-credential pair", parsePositiveInt)
    .option("--batch-size <n>", `documents per request (POST /svc-api/ingestion/batch), at most ${MAX_INGESTION_BATCH_SIZE}`, parsePositiveInt, 250)
    .option("--concurrency <n>", "requests in flight at once", parsePositiveInt, 4)
    .option("--retries <n>", "tries per request on 429, 503 and network errors (Retry-After honoured)", parsePositiveInt, 6)
    .option("--wait", "after sending, wait until every document sent is indexed (or failed)")
    .option("--wait-timeout <seconds>", "how long --wait waits", parsePositiveInt, 600)
    .option("--state <file>", "where to remember what was sent, to skip it on a rerun (env SVC_INGEST_STATE)")
    .option("--force", "send everything, even what the state file says is stored unchanged")
    .option("--id-prefix <prefix>", "prefix of the document ids made from file paths (folders only)", "")
    .option("--link-prefix <url>", "a file's link is this URL + its path in the folder (default: its file:// URL)")
    .option("--dry-run", "check the key and the server, then list what would be sent, skipped and ignored; send nothing")
    .option("--verbose", "name every ignored file (else the first few)")
    .option("--json", "print the summary as JSON")
    .action(async (path: string, options: IngestOptions) => (await import("./commands/ingest")).runIngestCommand(cliEnv(), path, options));

  const webhooks = program
    .command("webhooks")
    .description("webhook endpoints of a running svc, over its REST API (--url / SVC_URL, --key / SVC_API_KEY: an admin key)");
  const apiOptions = (command: Command) =>
    command.option("--url <url>", "the API root of svc (env SVC_URL; default http://localhost:$PORT/api)").option("--key <key>", "an admin API key (env SVC_API_KEY)");
  apiOptions(webhooks.command("add"))
    .description("register an endpoint; its signing secret is printed alone on the last line of stdout, once")
    .argument("<url>", "where svc POSTs the events (public addresses only, unless svc runs with SVC_WEBHOOK_ALLOW_PRIVATE)")
    .option("--pair <ids>", "only these pairs' events (comma-separated ids)", (text: string) => text.split(",").map((id) => parsePositiveInt(id.trim())))
    .addOption(
      new Option("--event <types>", `only these event types (comma-separated: ${EventTypeSchema.options.join(", ")})`).argParser((text: string) =>
        text.split(",").map((type) => {
          const parsed = EventTypeSchema.safeParse(type.trim());
          if (!parsed.success) throw new UsageError(`--event: not an event type: "${type.trim()}" (one of ${EventTypeSchema.options.join(", ")})`);
          return parsed.data;
        }),
      ),
    )
    .action(async (url: string, options: { url?: string; key?: string; pair?: number[]; event?: EventType[] }) =>
      (await import("./commands/webhooks")).addWebhook(cliEnv(), url, options),
    );
  apiOptions(webhooks.command("list"))
    .description("list the endpoints the key may see (never their secrets)")
    .addOption(jsonOption())
    .action(async (options: { url?: string; key?: string; json?: boolean }) => (await import("./commands/webhooks")).listWebhooks(cliEnv(), options));
  apiOptions(webhooks.command("remove"))
    .description("remove an endpoint and its deliveries")
    .argument("<id>", "the endpoint's id", parsePositiveInt)
    .action(async (id: number, options: { url?: string; key?: string }) => (await import("./commands/webhooks")).removeWebhook(cliEnv(), id, options));

  return program;
}

buildProgram()
  .parseAsync(process.argv)
  // On success the process ends by itself (`svc start` goes on supervising).
  .catch((error: unknown) => {
      if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
      // A message may carry a name or a server's words: each line's controls are escaped (a library's
      // message may span lines on purpose).
      console.error(String(error instanceof Error ? error.message : error).split("\n").map(escapeTerminalText).join("\n"));
      if (error instanceof UsageError) console.error("(svc --help shows the commands; svc COMMAND --help their options)");
      process.exit(error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE);
  });
