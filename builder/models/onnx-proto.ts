/**
 * A minimal protobuf encoder for the ONNX messages our converters write (ModelProto, GraphProto,
 * NodeProto, TensorProto, ValueInfoProto, AttributeProto; field numbers from onnx.proto).
 * Hand-written because the E5 graph needs a dozen operator kinds and raw tensors only: a protobuf
 * library plus onnx's schema would be larger than this file, and the output is checked by
 * onnxruntime itself (tests/unit/models).
 */

type Field = Uint8Array;

function varint(value: number | bigint): number[] {
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n; // two's complement for negative int64
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

const tag = (field: number, wire: number) => varint((field << 3) | wire);
const intField = (field: number, value: number | bigint): Field => Uint8Array.from([...tag(field, 0), ...varint(value)]);
const floatField = (field: number, value: number): Field => {
  const out = new Uint8Array([...tag(field, 5), 0, 0, 0, 0]);
  new DataView(out.buffer).setFloat32(out.length - 4, value, true);
  return out;
};
const bytesField = (field: number, bytes: Uint8Array): Field => concat([Uint8Array.from([...tag(field, 2), ...varint(bytes.length)]), bytes]);
const stringField = (field: number, s: string): Field => bytesField(field, new TextEncoder().encode(s));
const message = (field: number, parts: readonly Field[]): Field => bytesField(field, concat(parts));

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, FLOAT16: 10 } as const;

export interface TensorSpec {
  name: string;
  dataType: number;
  dims: readonly number[];
  /** Little-endian raw bytes (TensorProto.raw_data). */
  raw: Uint8Array;
  /** Instead of `raw`: the bytes live in another file (TensorProto external data), at offset for length bytes. */
  external?: { location: string; offset: number; length: number };
}

export interface ValueSpec {
  name: string;
  elemType: number;
  /** A number is a fixed size, a string a symbolic one ('batch'). */
  shape: readonly (number | string)[];
}

export type AttributeValue = number | readonly number[] | string | { float: number };

export interface NodeSpec {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name: string;
  /** Operator domain: '' is the ONNX standard set, 'com.microsoft' onnxruntime's contrib ops. */
  domain?: string;
  /** A number is an INT, an array INTS, a string STRING, {float} a FLOAT. */
  attributes?: Record<string, AttributeValue>;
}

function attribute(name: string, value: AttributeValue): Field {
  // AttributeProto: name 1, f 2, i 3, s 4, ints 8, type 20 (FLOAT 1, INT 2, STRING 3, INTS 7)
  if (typeof value === 'number') return message(5, [stringField(1, name), intField(3, value), intField(20, 2)]);
  if (typeof value === 'string') return message(5, [stringField(1, name), stringField(4, value), intField(20, 3)]);
  if ('float' in value) return message(5, [stringField(1, name), floatField(2, value.float), intField(20, 1)]);
  return message(5, [stringField(1, name), ...value.map((v) => intField(8, v)), intField(20, 7)]);
}

function tensor(field: number, t: TensorSpec): Field {
  const head = [...t.dims.map((d) => intField(1, d)), intField(2, t.dataType), stringField(8, t.name)];
  if (!t.external) return message(field, [...head, bytesField(9, t.raw)]);
  // external_data (13): StringStringEntryProto {key 1, value 2}; data_location (14): EXTERNAL = 1.
  const entry = (key: string, value: string) => message(13, [stringField(1, key), stringField(2, value)]);
  const { location, offset, length } = t.external;
  return message(field, [...head, entry('location', location), entry('offset', String(offset)), entry('length', String(length)), intField(14, 1)]);
}

function valueInfo(field: number, v: ValueSpec): Field {
  const dims = v.shape.map((d) => message(1, [typeof d === 'number' ? intField(1, d) : stringField(2, d)]));
  const tensorType = message(1, [intField(1, v.elemType), message(2, dims)]);
  return message(field, [stringField(1, v.name), message(2, [tensorType])]);
}

function node(n: NodeSpec): Field {
  const attributes = Object.entries(n.attributes ?? {}).map(([name, value]) => attribute(name, value));
  return message(1, [
    ...n.inputs.map((i) => stringField(1, i)),
    ...n.outputs.map((o) => stringField(2, o)),
    stringField(3, n.name),
    stringField(4, n.op),
    ...attributes,
    ...(n.domain ? [stringField(7, n.domain)] : []),
  ]);
}

export interface GraphSpec {
  name: string;
  nodes: readonly NodeSpec[];
  initializers: readonly TensorSpec[];
  inputs: readonly ValueSpec[];
  outputs: readonly ValueSpec[];
}

export interface ModelOptions {
  /** The standard opset; default 17 (LayerNormalization). */
  opset?: number;
  /** Extra operator sets, e.g. {'com.microsoft': 1} for MatMulNBits. */
  domains?: Record<string, number>;
  producer?: string;
  /** ModelProto.metadata_props: provenance a reader can show. */
  metadata?: Record<string, string>;
}

export function encodeModel(graph: GraphSpec, options: ModelOptions = {}): Uint8Array {
  const { opset = 17, domains = {}, producer = 'harel-chat', metadata = {} } = options;
  // Initializers are written one by one: a 100 MB model must not be one concat of every tensor
  // twice over (the graph message), so the graph is framed around them.
  const graphParts: Field[] = [
    ...graph.nodes.map(node),
    stringField(2, graph.name),
    ...graph.initializers.map((t) => tensor(5, t)),
    ...graph.inputs.map((v) => valueInfo(11, v)),
    ...graph.outputs.map((v) => valueInfo(12, v)),
  ];
  return concat([
    intField(1, 8), // ir_version
    stringField(2, producer),
    message(7, graphParts),
    message(8, [stringField(1, ''), intField(2, opset)]), // opset_import
    ...Object.entries(domains).map(([domain, version]) => message(8, [stringField(1, domain), intField(2, version)])),
    ...Object.entries(metadata).map(([key, value]) => message(14, [stringField(1, key), stringField(2, value)])),
  ]);
}
