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
