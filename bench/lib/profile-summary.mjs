// Summarises V8 CPU profiles (node --cpu-prof) as text for bench/RESULTS.md: where the sampled time
// went, by self time per function and per origin (a package, svc's own code, node's internals, or
// the native side: garbage collection, idle, "(program)"), and the total time under svc's own
// functions of interest (inclusive time).
//   node bench/lib/profile-summary.mjs PROFILE.cpuprofile [...] [--top 25] [--under name1,name2] [--callers name]
// (--callers: the stacks, --depth frames up (4), that lead to the self time of the named function)
// Several profiles (one process's runs) are added together.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values: options, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, under: { type: "string", default: "" }, callers: { type: "string", default: "" }, depth: { type: "string", default: "4" } },
});
if (files.length === 0) {
  process.stderr.write("usage: node bench/lib/profile-summary.mjs PROFILE.cpuprofile [...] [--top N] [--under fn1,fn2]\n");
  process.exit(2);
}
const top = Number(options.top);
const underNames = options.under ? options.under.split(",") : [];

/** Where a function's code lives: a package name, "svc <app or package>", "node", or the pseudo-node's own name. */
function originOf(url, functionName) {
  if (!url) return functionName.startsWith("(") ? functionName : "node (native)";
  const packages = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
  if (packages.length > 0) return packages.at(-1)[1];
  if (url.startsWith("node:")) return "node";
  const own = url.match(/\/(apps|packages)\/([^/]+)\//);
  return own ? `svc ${own[2]}` : url;
}

const selfByFunction = new Map();
const selfByOrigin = new Map();
const inclusiveByName = new Map(underNames.map((name) => [name, 0]));
const callerStacks = new Map();
const depth = Number(options.depth);
let totalMs = 0;

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Sample i lasted timeDeltas[i + 1] (the delta to the next sample); the last one is not counted.
  const selfMs = new Map();
  for (let i = 0; i < profile.samples.length - 1; i++) {
    const ms = profile.timeDeltas[i + 1] / 1000;
    selfMs.set(profile.samples[i], (selfMs.get(profile.samples[i]) ?? 0) + ms);
  }
  for (const [id, ms] of selfMs) {
    const { callFrame } = nodes.get(id);
    const name = callFrame.functionName || "(anonymous)";
    const where = callFrame.url ? `${callFrame.url.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(/^file:\/\/.*?\/(apps|packages)\//, "$1/")}:${callFrame.lineNumber + 1}` : "";
    const key = where ? `${name} ${where}` : name;
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + ms);
    const origin = originOf(callFrame.url, name);
    selfByOrigin.set(origin, (selfByOrigin.get(origin) ?? 0) + ms);
    totalMs += ms;
    if (options.callers && name === options.callers) {
      const frames = [];
      for (let at = parentOf.get(id); at !== undefined && frames.length < depth; at = parentOf.get(at)) {
        const frame = nodes.get(at).callFrame;
        frames.push(`${frame.functionName || "(anonymous)"}${frame.url ? `@${originOf(frame.url, "")}` : ""}`);
      }
      const stack = frames.join(" < ");
      callerStacks.set(stack, (callerStacks.get(stack) ?? 0) + ms);
    }
    // Inclusive time of the named functions: each sample counts once per name on its stack.
    if (underNames.length > 0) {
      const seen = new Set();
      for (let at = id; at !== undefined; at = parentOf.get(at)) {
        const frameName = nodes.get(at).callFrame.functionName;
        if (inclusiveByName.has(frameName) && !seen.has(frameName)) {
          seen.add(frameName);
          inclusiveByName.set(frameName, inclusiveByName.get(frameName) + ms);
        }
      }
    }
  }
}

const busyMs = totalMs - (selfByOrigin.get("(idle)") ?? 0);
const share = (ms) => `${((100 * ms) / busyMs).toFixed(1)} %`;
const rows = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
const print = (line) => process.stdout.write(`${line}\n`);

print(`profiles: ${files.length}; sampled ${(totalMs / 1000).toFixed(1)} s, of which busy (not idle) ${(busyMs / 1000).toFixed(1)} s`);
print("");
print("| self time by origin | s | of busy |");
print("|---|---|---|");
for (const [origin, ms] of rows(selfByOrigin)) if (origin !== "(idle)") print(`| ${origin} | ${(ms / 1000).toFixed(2)} | ${share(ms)} |`);
print("");
print("| self time by function | s | of busy |");
print("|---|---|---|");
for (const [key, ms] of rows(selfByFunction)) if (key !== "(idle)") print(`| \`${key}\` | ${(ms / 1000).toFixed(2)} | ${share(ms)} |`);
if (underNames.length > 0) {
  print("");
  print("| inclusive time under | s | of busy |");
  print("|---|---|---|");
  for (const [name, ms] of inclusiveByName) print(`| \`${name}\` | ${(ms / 1000).toFixed(2)} | ${share(ms)} |`);
}
if (options.callers) {
  print("");
  print(`| callers of \`${options.callers}\` (nearest first) | s | of busy |`);
  print("|---|---|---|");
  for (const [stack, ms] of rows(callerStacks)) print(`| ${stack} | ${(ms / 1000).toFixed(2)} | ${share(ms)} |`);
}
