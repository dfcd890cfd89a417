import { measureSearchIndex, readMetricCounts } from "@svc/core";
import { AggregatorRegistry, Gauge, Registry } from "prom-client";
import type { Services } from "../services";
import { webMetrics } from "./web-metrics";

type MetricJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>[number];

/**
 * The text GET /api/metrics answers. Three sources in one exposition:
 * - this web process's registry (its requests and process metrics), labelled `component="web"`;
 * - each live worker's registry as it last published it into its heartbeat row (jobs, indexing lag,
 *   process metrics), labelled `component="worker"` and its `worker_id`, and the index maintenance
 *   process's likewise (merges, unmerged rows, process metrics), `component="maintenance"`;
 * - gauges counted from the database now (documents by status, queues, index attempts) and from the
 *   search index (each active generation's documents, chunks and bytes), with no component label:
 *   they are svc's state, not a process's, and agree with the console and the CLI.
 * prom-client's aggregator merges the process registries; their label sets never collide, so each
 * series passes through as its process reported it.
 */
export async function renderMetrics({ db, boss, index }: Pick<Services, "db" | "boss" | "index">): Promise<{ contentType: string; body: string }> {
  const [counts, sizes, web] = await Promise.all([readMetricCounts({ db, boss }), measureSearchIndex({ db, index }), webMetrics().registry.getMetricsAsJSON()]);
  const processes = [
    labelled(web, { component: "web" }),
    ...counts.workers.flatMap(({ workerId, role, metrics }) =>
      Array.isArray(metrics) ? [labelled(metrics as MetricJson[], { component: role, worker_id: workerId })] : [],
    ),
  ];
  const state = new Registry();
  const gauge = (name: string, help: string, labelName: string, values: Record<string, number>) => {
    const metric = new Gauge({ name, help, labelNames: [labelName], registers: [state] });
    for (const [label, value] of Object.entries(values)) metric.set({ [labelName]: label }, value);
  };
  gauge("svc_documents", "Documents by indexing status, counted in the database", "indexing_status", counts.documentsByStatus);
  gauge("svc_index_attempts", "Index attempts by status, counted in the database", "status", counts.indexAttemptsByStatus);
  const perQueue = (field: "queued" | "active" | "oldestQueuedSeconds") => Object.fromEntries(counts.queues.map((queue) => [queue.name, queue[field]]));
  gauge("svc_queue_depth", "Jobs waiting for a worker, per queue", "queue", perQueue("queued"));
  gauge("svc_queue_active_jobs", "Jobs a worker is running, per queue", "queue", perQueue("active"));
  gauge("svc_queue_oldest_age_seconds", "Seconds the oldest waiting job has waited, per queue (0 when none waits)", "queue", perQueue("oldestQueuedSeconds"));
  const perGeneration = (field: "documents" | "chunks" | "bytes") =>
    Object.fromEntries(sizes.flatMap(({ generationId, size }) => (size ? [[String(generationId), size[field]]] : [])));
  gauge("svc_index_documents", "Documents with chunks in the search index, per active generation", "generation", perGeneration("documents"));
  gauge("svc_index_chunks", "Chunk rows in the search index, per active generation", "generation", perGeneration("chunks"));
  gauge("svc_index_size_bytes", "Bytes of the search index's files (its current version), per active generation", "generation", perGeneration("bytes"));
  new Gauge({ name: "svc_workers", help: "Workers whose heartbeat is under 60 s old (the health page's live workers)", registers: [state] }).set(counts.liveWorkers);

  const merged = Registry.merge([AggregatorRegistry.aggregate(processes), state]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}

/** The metrics with `labels` added to every value, and passed through unchanged by the aggregator. */
function labelled(metrics: MetricJson[], labels: Record<string, string>): MetricJson[] {
  return metrics.map((metric) => ({
    ...metric,
    aggregator: "first",
    values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, ...labels } })),
  }));
}
