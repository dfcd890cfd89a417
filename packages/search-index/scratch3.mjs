process.env.LANCE_CPU_THREADS = "4";
const lancedb = await import("@lancedb/lancedb");
const { Index, MatchQuery, Operator } = lancedb;
const db = await lancedb.connect("/tmp/lance-scratch3-" + Date.now());
const rows = [
  { document_id: "both", text: "the quick brown fox" },
  { document_id: "only", text: "quick silver" },
  { document_id: "rev", text: "brown quick" },
];
async function run(label, t) {
  const q = async (query) => (await t.query().fullTextSearch(query).select(["document_id", "_score"]).limit(10).toArray()).map(r => `${r.document_id}:${r._score.toFixed(3)}`).join(" ");
  console.log(label, "| quick:", await q(new MatchQuery("quick", "text")), "| AND quick brown:", await q(new MatchQuery("quick brown", "text", { operator: Operator.And })), "| brown:", await q(new MatchQuery("brown", "text")));
}
const t1 = await db.createTable("empty_index", [{ document_id: "x", text: "placeholder" }]);
await t1.delete("true");
await t1.createIndex("text", { config: Index.fts({ withPosition: true }) });
await t1.add(rows);
await run("index-on-empty, rows unindexed", t1);
await t1.optimize();
await run("after optimize", t1);
const t2 = await db.createTable("indexed", rows);
await t2.createIndex("text", { config: Index.fts({ withPosition: true }) });
await run("indexed", t2);
await t2.add([{ document_id: "new", text: "quick brown quick brown" }]);
await run("indexed + 1 unindexed", t2);
