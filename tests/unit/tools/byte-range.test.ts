/** The preview and dev servers honour one byte range, as static hosts do (transformers.js asks for `bytes=0-0`). */
import { describe, expect, it } from 'vitest';
import { byteRange } from '../../../tools/static-server.ts';

describe('byteRange', () => {
  it('reads one range, an open end and a suffix, clamped to the file', () => {
    expect(byteRange('bytes=0-0', 100)).toEqual({ start: 0, end: 0 });
    expect(byteRange('bytes=10-', 100)).toEqual({ start: 10, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
  });

  it('sends the whole file for no range, several ranges or another unit', () => {
    expect(byteRange(undefined, 100)).toBeNull();
    expect(byteRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(byteRange('items=0-1', 100)).toBeNull();
    expect(byteRange('bytes=-', 100)).toBeNull();
  });

  it('refuses a range outside the file', () => {
    expect(byteRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(byteRange('bytes=5-2', 100)).toBe('unsatisfiable');
    expect(byteRange('bytes=0-0', 0)).toBe('unsatisfiable');
  });
});
