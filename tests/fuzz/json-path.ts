/** Edits a parsed JSON value at a dotted path: the fuzzers' one way to change a field. */

export interface SetPathOptions {
  /** Creates missing objects along the path, so a field a file lacks can be added. */
  create?: boolean;
  /** Defines the last key as an own property, so "__proto__" becomes a key of the JSON instead of the object's prototype. */
  ownProperty?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';

/** `target` with `value` at `path` (`''`: `value` itself); a path through something not an object leaves `target` as it was. */
export function setPath(target: unknown, path: string, value: unknown, options: SetPathOptions = {}): unknown {
  if (path === '') return value;
  const keys = path.split('.');
  let o: unknown = target;
  for (const k of keys.slice(0, -1)) {
    if (!isObject(o)) return target;
    if (options.create && !(k in o)) o[k] = {};
    o = o[k];
  }
  if (!isObject(o)) return target;
  const last = keys.at(-1)!;
  if (options.ownProperty) Object.defineProperty(o, last, { value, enumerable: true, writable: true, configurable: true });
  else o[last] = value;
  return target;
}
