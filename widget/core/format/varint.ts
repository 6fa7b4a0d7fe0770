/**
 * LEB128 unsigned varints: a posting's chunk-id gap and term frequency are small numbers, mostly
 * one byte each this way, where a Uint32 would spend four.
 */

/** A growable byte buffer that writes varints, raw bytes and little-endian words. */
export class ByteWriter {
  private bytes = new Uint8Array(1024);
  length = 0;

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  varint(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`varint out of range: ${value}`);
    this.reserve(5);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Zero bytes up to a multiple of `n`, so a typed array can view what follows in place. */
  align(n: number): void {
    const pad = (n - (this.length % n)) % n;
    this.reserve(pad);
    this.bytes.fill(0, this.length, this.length + pad);
    this.length += pad;
  }

  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/**
 * Reads one varint at `pos` of `bytes`; returns the value and leaves the next position in
 * `cursor.pos`. A cursor object instead of a returned pair: this runs once per posting, and a
 * pair would allocate.
 */
export function readVarint(bytes: Uint8Array, cursor: { pos: number }): number {
  let pos = cursor.pos;
  if (pos >= bytes.length) throw new RangeError('truncated varint');
  let byte = bytes[pos++];
  let value = byte & 0x7f;
  let shift = 7;
  while (byte & 0x80) {
    if (pos >= bytes.length || shift > 28) throw new RangeError('truncated or overlong varint');
    byte = bytes[pos++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  cursor.pos = pos;
  return value;
}
