/**
 * Walks over parsed client JSON. All of them are iterative (an explicit stack, never recursion), so
 * a body nested 20,000 levels deep cannot overflow the call stack whatever reaches them first.
 */

/** Deepest nesting of arrays/objects a request body may have (docs/decisions.md, "Every error is JSON"). */
export const MAX_JSON_DEPTH = 256;

// In a `u` regex a surrogate pair is one code point, so this matches only an unpaired half.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** True when `text` holds an unpaired UTF-16 surrogate, which PostgreSQL text and jsonb cannot hold. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

/** True when arrays and objects are nested more than `maxDepth` levels (`[]` is one level). */
export function exceedsJsonDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    if (!isContainer(entry.value)) continue;
    const depth = entry.depth + 1;
    if (depth > maxDepth) return true;
    // for…in, not Object.values: an object of a million keys is a hash table, whose values V8 copies
    // out at ~1 µs each (1 s), while for…in reads them in place at less than half that.
    const container = entry.value;
    if (Array.isArray(container)) {
      for (const child of container) if (isContainer(child)) stack.push({ value: child, depth });
    } else {
      for (const key in container) {
        const child = container[key];
        if (isContainer(child)) stack.push({ value: child, depth });
      }
    }
  }
  return false;
}

/** Where a string sits: the path to it, and whether it is an object key there. */
export interface JsonStringAt {
  path: PropertyKey[];
  text: string;
  inKey: boolean;
}

/** The first string or object key (depth first, in document order) holding an unpaired surrogate. */
export function findLoneSurrogate(value: unknown): JsonStringAt | null {
  return findJsonString(value, hasLoneSurrogate);
}

/** True when `text` holds something PostgreSQL text cannot: a NUL character or an unpaired surrogate. */
export function isUnstorableText(text: string): boolean {
  return text.includes("\u0000") || hasLoneSurrogate(text);
}

/** A step of a walk: the value, and how it was reached (a parent link, so a step costs O(1) at any depth). */
interface Step {
  value: unknown;
  key: PropertyKey | null;
  parent: Step | null;
}

function pathOf(step: Step): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Step | null = step; at?.key != null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/** The first string or object key (depth first, in document order) that `test` picks. */
export function findJsonString(value: unknown, test: (text: string) => boolean): JsonStringAt | null {
  const stack: Step[] = [{ value, key: null, parent: null }];
  for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
    const current = step.value;
    if (typeof current === "string") {
      if (test(current)) return { path: pathOf(step), text: current, inKey: false };
      continue;
    }
    if (!isContainer(current)) continue;
    const children: Step[] = [];
    if (Array.isArray(current)) {
      current.forEach((child, index) => children.push({ value: child, key: index, parent: step }));
    } else {
      for (const [key, child] of Object.entries(current)) {
        if (test(key)) return { path: [...pathOf(step), key], text: key, inKey: true };
        children.push({ value: child, key, parent: step });
      }
    }
    // Reversed onto the stack so that the first child is looked at first.
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index] as Step);
  }
  return null;
}

/**
 * A copy of a parsed JSON value with every string and object key passed through `mapString`.
 * Objects are rebuilt with defineProperty, so a `"__proto__"` key from JSON.parse stays a plain key.
 */
export function mapJsonStrings(value: unknown, mapString: (text: string) => string): unknown {
  const convert = (input: unknown): unknown => {
    if (typeof input === "string") return mapString(input);
    if (Array.isArray(input)) return new Array<unknown>(input.length);
    if (isContainer(input)) return {};
    return input;
  };
  const root = convert(value);
  const pending: Array<{ source: unknown; target: unknown }> = [{ source: value, target: root }];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const { source, target } = entry;
    if (Array.isArray(source) && Array.isArray(target)) {
      source.forEach((child: unknown, index) => {
        const copy = convert(child);
        target[index] = copy;
        if (isContainer(child)) pending.push({ source: child, target: copy });
      });
    } else if (isContainer(source) && isContainer(target)) {
      for (const [key, child] of Object.entries(source)) {
        const copy = convert(child);
        Object.defineProperty(target, mapString(key), { value: copy, enumerable: true, writable: true, configurable: true });
        if (isContainer(child)) pending.push({ source: child, target: copy });
      }
    }
  }
  return root;
}
