/**
 * Collects V8's garbage now, in a process started with --expose-gc (`svc start` runs the worker so);
 * elsewhere nothing happens. Called between the slices of a large document's writes: each slice's row
 * objects, searched texts, JSON and Arrow buffers are garbage once it is committed, but they lived
 * across the commit's await, were promoted, and V8 left them to a full collection that came late: a
 * 20 MiB document's slices piled up ~90 MB of heap garbage and freed Arrow buffers before one
 * (docs/decisions.md "The search index"; bench/RESULTS.md, issue 44). A full collection of the worker's heap takes tens of milliseconds; a
 * slice carries up to a million characters, so a batch of ordinary documents never pays it.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Collects V8's garbage as it does when memory runs short (V8's "last resort": several full
 * collections that also shrink the young generation and give emptied pages back to the system), in a
 * process started with --expose-gc. Before a large document is read and once it is indexed: an
 * ordinary collection leaves V8 holding the pages it emptied (~40 MB of a worker's resident memory
 * after a 20 MiB document), and the document, then the index merge that follows it, would add their
 * own memory on top of them (bench/RESULTS.md, issue 44 §3). It takes ~0.6-0.8 s of the worker's
 * main thread on a loaded 2-core machine, twice per large document; ordinary batches never pay it.
 */
export function releaseHeap(): void {
  (globalThis as { gc?: (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void }).gc?.({
    type: "major",
    execution: "sync",
    flavor: "last-resort",
  });
}
