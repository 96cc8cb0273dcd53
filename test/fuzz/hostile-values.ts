// The "broken" half of the fuzz test's inputs: JSON the service must refuse cleanly (wrong types,
// prototype keys, deep nesting, huge strings, numbers JSON allows but JavaScript cannot hold),
// text that is not JSON, bytes that are not UTF-8, and content types that are not JSON.
import fc from "fast-check";

/** JSON text inserted as is: what a JavaScript value cannot express (duplicate or `__proto__` keys, 1e999). */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** Serialises plain values and RawJson pieces; plain objects may be given as [key, value] entries. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** An object member as JSON text, so keys such as `__proto__` stay own keys of the parsed object. */
export const member = (key: string, value: unknown) => `${JSON.stringify(key)}:${toJsonText(value)}`;

export const PROTOTYPE_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"] as const;

const nested = (depth: number, open: string, close: string, core = "1") => new RawJson(open.repeat(depth) + core + close.repeat(depth));

/** A value of the wrong type or shape for almost any field. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0.0, "", " ", "0", "null", "true", [], {}, [null], [""], { "": "" }),
  fc.constantFrom(
    new RawJson("1e999"), new RawJson("-1e999"), new RawJson("9007199254740993"), new RawJson("1e-400"), new RawJson("-0"),
    new RawJson("123456789012345678901234567890"), new RawJson('"\\ud800"'), new RawJson('"\\u0000"'), new RawJson('"a\\u0000b"'),
  ),
  fc.integer({ min: 2, max: 2_000 }).map((depth) => nested(depth, "[", "]")),
  fc.integer({ min: 2, max: 2_000 }).map((depth) => nested(depth, '{"a":', "}")),
  fc.constantFrom(...PROTOTYPE_KEYS).map((key) => new RawJson(`{${member(key, { polluted: true })}}`)),
  fc.integer({ min: 1_000, max: 300_000 }).map((length) => "x".repeat(length)),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Whole bodies that are JSON but not an object, or not JSON at all. */
export const notAnObject: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("null", "true", "0", "-1", '"x"', "[]", "[{}]", "1e999", '""'),
  fc.constantFrom(100, 10_000, 100_000).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
);

export const notJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "{", "}", "{]", '{"a":}', "{'a':1}", '{"a":1,}', '{"a":1} x', "{} {}", "NaN", "Infinity", "undefined", "{a:1}", " ",
    "\uFEFF", '{"a":1/*c*/}', '{"a":"\\x41"}', '{"a":"\n"}', "[", '{"a"', "nul", "tru", "{}}", "{{}}", '{"a":01}', '{"a":.5}',
  ),
  fc.string({ maxLength: 30 }).filter((text) => !isJson(text)),
  fc.constantFrom(100_000).map((depth) => "{".repeat(depth)),
);

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, surrogates, 0xFF. */
export const notUtf8: fc.Arbitrary<number[]> = fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]);

export const JSON_CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8", "APPLICATION/JSON"] as const;

export const wrongContentType: fc.Arbitrary<string> = fc.constantFrom(
  "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "multipart/form-data",
  "application/xml", "application/octet-stream", "application/jsonx", "application/json;", "application/json; charset",
  "application/json; charset=utf-16", "application/json; charset=latin1; x", "json", "*/*", "application/", "text/json",
  "application/json, text/plain", "application/vnd.api+json", "application/a_b+json", "image/png", "x",
);

const WEBSOCKET_UPGRADE: [string, string][] = [["upgrade", "websocket"], ["connection", "Upgrade"], ["sec-websocket-protocol", "a, b"]];

/**
 * Header values a client may send that no route expects: huge, many, or odd. A WebSocket upgrade only
 * on GET: workerd's in-process fetch turns any request asking to upgrade into a GET.
 */
export const oddHeaders = (method: string): fc.Arbitrary<[string, string][]> => fc.oneof(
  fc.constant<[string, string][]>([]),
  fc.integer({ min: 1_000, max: 60_000 }).map((length): [string, string][] => [["x-fuzz-huge", "h".repeat(length)]]),
  fc.integer({ min: 50, max: 300 }).map((count) => Array.from({ length: count }, (_, i): [string, string] => [`x-fuzz-${i}`, String(i)])),
  fc.constantFrom<[string, string][]>(
    [["accept", "application/xml"]], [["accept-encoding", "gzip, br, zstd"]], [["content-encoding", "gzip"]], [["transfer-encoding", "chunked"]],
    [["origin", "null"]], [["origin", "https://evil.example"]], [["x-forwarded-for", "1.2.3.4"]], [["cookie", "a=%zz; gpr_session=%E0%A4%A"]],
    [["x-upstream-authorization", "Bearer x"]], [["expect", "100-continue"]], [["range", "bytes=0-1"]], [["if-none-match", "*"]],
    method === "GET" ? WEBSOCKET_UPGRADE : [["upgrade", "h2c"]],
  ),
);
