import { describe, expect, it } from "vitest";
import { useSvcCommand } from "./testing/svc-command";

const { database, svc, failure } = await useSvcCommand("pairs");

describe("svc pairs", () => {
  it("creates, lists, pauses, resumes and deletes pairs", async () => {
    const created = await svc("create", "--name", "Team wiki", "--source", "web", "--access", "private");
    const id = Number(created.stdout.trimEnd().split("\n").at(-1));
    expect(await database.db.connectorCredentialPair.findUniqueOrThrow({ where: { id } })).toMatchObject({
      name: "Team wiki",
      accessType: "private",
      status: "SCHEDULED",
    });

    const listed = await svc("list");
    const [header, ...rows] = listed.stdout.trimEnd().split("\n");
    expect(header?.split(/\s{2,}/)).toEqual(["ID", "SOURCE", "STATUS", "ACCESS", "DOCS", "FAILED", "LAST ATTEMPT", "NAME"]);
    expect(rows.map((row) => row.split(/\s{2,}/))).toContainEqual([String(id), "web", "SCHEDULED", "private", "0", "0", "-", "Team wiki"]);
    expect(listed.stdout).not.toContain("DefaultCCPair");

    const listedJson = JSON.parse((await svc("list", "--json")).stdout) as { source: string; indexing_statuses: { cc_pair_id: number; name: string }[] }[];
    expect(listedJson.flatMap((group) => group.indexing_statuses)).toContainEqual(expect.objectContaining({ cc_pair_id: id, name: "Team wiki" }));

    expect((await svc("pause", String(id))).stdout).toContain("PAUSED");
    expect((await database.db.connectorCredentialPair.findUniqueOrThrow({ where: { id } })).status).toBe("PAUSED");
    expect((await svc("resume", String(id))).stdout).toContain("ACTIVE");

    expect((await svc("delete", String(id))).stdout).toContain("DELETING");
    expect((await database.db.connectorCredentialPair.findUniqueOrThrow({ where: { id } })).status).toBe("DELETING");
    const jobs = await database.db.$queryRaw<{ data: unknown }[]>`SELECT data FROM pgboss.job WHERE name = 'delete-cc-pair'`;
    expect(jobs.map((job) => job.data)).toEqual([{ ccPairId: id }]);
    expect((await svc("list")).stdout).not.toContain("Team wiki");
  });

  it("prints a name's terminal controls escaped, and a table row on one line whatever the name holds", async () => {
    const name = "Red\u001b[31m\r\nID  forged\u0007\u009b\u202eend";
    const created = await svc("create", "--name", name, "--source", "web", "--access", "private");
    const id = Number(created.stdout.trimEnd().split("\n").at(-1));
    const shown = "Red\\e[31m\\r\\nID  forged\\u0007\\u009b\\u202eend";
    expect(created.stderr).toContain(`"${shown}"`);

    const listed = await svc("list");
    const rows = listed.stdout.trimEnd().split("\n");
    const own = rows.filter((row) => row.startsWith(`${id} `));
    expect(own).toHaveLength(1);
    expect(own[0]?.endsWith(`  ${shown}`)).toBe(true);
    expect(rows.filter((row) => row.includes("forged"))).toEqual(own);
    for (const output of [listed.stdout, created.stderr, (await svc("list", "--json")).stdout, (await svc("pause", String(id))).stdout]) {
      expect([...output].filter((char) => "\u001b\r\u0007\u009b\u202e".includes(char))).toEqual([]);
    }
    expect((await svc("list", "--json")).stdout).toContain("\\u001b[31m");
  });

  it("refuses bad input with a message and a non-zero exit", async () => {
    const badSource = await failure("create", "--name", "x", "--source", "nowhere", "--access", "public");
    expect(badSource.code).toBe(2);
    expect(badSource.stderr).toContain("option '--source <source>' argument 'nowhere' is invalid. Allowed choices are ingestion_api, slack");
    expect((await failure("create", "--name", "x", "--source", "web")).stderr).toContain("required option '--access <access>' not specified");
    expect((await failure("pause", "abc")).code).toBe(2);
    const unknown = await failure("pause", "424242");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Connector-Credential Pair not found");
    expect((await failure("delete", "1")).code).toBe(1);
  });
});
