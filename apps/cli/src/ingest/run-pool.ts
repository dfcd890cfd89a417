/**
 * Runs `work` on every item, `concurrency` at a time, reading the items lazily (a JSONL stream is
 * never held whole). The workers share one iterator; an async generator queues their `next()` calls.
 */
export async function runPool<T>(items: Iterable<T> | AsyncIterable<T>, concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator: Iterator<T> | AsyncIterator<T> = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  const worker = async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) await work(next.value);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
