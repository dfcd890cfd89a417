// Reading GET /api/metrics' Prometheus text format in tests: its samples, and one by name and labels.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, the samples only. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[label[1]!] = label[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The one sample with this name whose labels include `labels`; undefined when there is none. */
export function sample(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((candidate) => candidate.name === name && Object.entries(labels).every(([key, value]) => candidate.labels[key] === value));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}
