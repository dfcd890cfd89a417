/**
 * `map` over `items`, up to `concurrency` at once, yielding the results in the items' order: files are
 * read and parsed ahead of the requests that carry them, and a JSONL stream is never held whole.
 * `map` must not reject (a rejection waiting in the queue would be reported as unhandled).
 */
export async function* mapInOrder<T, R>(items: Iterable<T> | AsyncIterable<T>, concurrency: number, map: (item: T) => Promise<R>): AsyncIterable<R> {
  const running: Promise<R>[] = [];
  for await (const item of items) {
    running.push(map(item));
    if (running.length >= concurrency) yield await (running.shift() as Promise<R>);
  }
  for (const result of running) yield await result;
}
