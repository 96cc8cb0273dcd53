// Requests for one operation of the document, valid and broken, as fast-check arbitraries. A plan is
// symbolic where the value lives in the fixture ("the valid key", "a spare key id"), so fast-check
// can print, shrink and replay it; request-run.ts turns it into a Request.
import fc from "fast-check";
import { agentTokens, apiKeys, instanceTokens, sessionTokens } from "../../core/credentials.ts";
import { FIXED_FIELDS, VALID_BODIES } from "./fuzz-fixture.ts";
import { JSON_CONTENT_TYPES, member, notAnObject, notJson, notUtf8, oddHeaders, PROTOTYPE_KEYS, toJsonText, wrongContentType, wrongValue } from "./hostile-values.ts";
import { resolveRef, type JsonSchema, type OpenApiDocument, type Operation, type Parameter } from "./openapi-operations.ts";
import { hasPathFixture } from "./path-fixtures.ts";
import { schemaArbitrary } from "./schema-arbitrary.ts";

export type CredentialPlan =
  /** The fixture's credential for `scheme`; `origin` matters for the session cookie on unsafe methods. */
  | { kind: "valid"; scheme: string; origin: "own" | "none" | "foreign" }
  | { kind: "none" }
  | { kind: "raw"; authorization?: string; cookie?: string };

/** A path parameter: the fixture's value, or text (`valid` when it comes from the schema of a parameter without a fixture). */
export type ParamPlan = { kind: "fixture" } | { kind: "text"; text: string; encode: boolean; valid: boolean };

/** A body as chunks: strings (sent as UTF-8) and byte arrays (sent as they are, not UTF-8). */
export interface BodyPlan {
  label: string;
  contentType: string | null;
  chunks: (string | number[])[];
}

export interface RequestPlan {
  credential: CredentialPlan;
  path: Record<string, ParamPlan>;
  query: [string, string][];
  headers: [string, string][];
  body: BodyPlan | null;
}

const BODYLESS_METHODS = new Set(["GET", "HEAD"]);
/** The security schemes request-run.ts has credentials for (it refuses an operation with another). */
const KNOWN_SCHEMES = ["bearerAuth", "sessionCookie", "instanceToken", "adminAuth"];

/** A credential of `format` shaped right but held by no one: `owner` exists nowhere, or holds no such secret. */
const unheld = (format: { prefix: string }, owner: string | number) => `${format.prefix}${owner}_${"a".repeat(32)}`;
const NO_ACCOUNT = `acc-${"a".repeat(16)}`;

/** Authorization headers no operation accepts: malformed, another scheme, unheld tokens of each kind, a wrong admin token, two tokens. */
const WRONG_AUTHORIZATIONS = [
  "Bearer", "Bearer ", "Basic Zm9vOmJhcg==",
  ...[unheld(apiKeys, NO_ACCOUNT), unheld(instanceTokens, NO_ACCOUNT), unheld(agentTokens, 1)].map((token) => `Bearer ${token}`),
  "Bearer test-admin-token-not", "Bearer a, Bearer b",
];
const NO_PERSON = `usr-${"a".repeat(16)}`;
/** Session cookies no operation accepts: unheld sessions (a person's, and one of before teams), an empty one, and two with bad percent-encoding. */
const WRONG_SESSION_COOKIES = [
  `gpr_session=${unheld(sessionTokens, NO_PERSON)}`, `gpr_session=${unheld(sessionTokens, NO_ACCOUNT)}`, "gpr_session=", "gpr_session=%zz%E0%A4%A; gpr_session=x",
];

export function requestArbitrary(document: OpenApiDocument, operation: Operation): fc.Arbitrary<RequestPlan> {
  const pathParams = operation.parameters.filter((p) => p.in === "path");
  const path = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathParamArbitrary(document, operation, p)]))) as fc.Arbitrary<Record<string, ParamPlan>>;
  return fc.record({
    credential: credentialArbitrary(operation),
    path,
    query: queryArbitrary(document, operation.parameters.filter((p) => p.in === "query")),
    headers: fc.tuple(headerParamsArbitrary(document, operation.parameters.filter((p) => p.in === "header")), oddHeaders(operation.method))
      .map(([declared, odd]) => [...declared, ...odd]),
    body: bodyArbitrary(document, operation),
  });
}

function credentialArbitrary(operation: Operation): fc.Arbitrary<CredentialPlan> {
  const wrong = fc.oneof(
    fc.constant<CredentialPlan>({ kind: "none" }),
    fc.constantFrom<CredentialPlan>(
      ...WRONG_AUTHORIZATIONS.map((authorization) => ({ kind: "raw" as const, authorization })),
      ...WRONG_SESSION_COOKIES.map((cookie) => ({ kind: "raw" as const, cookie })),
    ),
    fc.string({ maxLength: 60 }).map((token): CredentialPlan => ({ kind: "raw", authorization: `Bearer ${token}` })),
    fc.integer({ min: 1_000, max: 30_000 }).map((length): CredentialPlan => ({ kind: "raw", authorization: `Bearer ${"k".repeat(length)}` })),
    // Another scheme's valid credential: the admin token on /v1, a key on /admin, a session on the proxy.
    fc.constantFrom(...KNOWN_SCHEMES.filter((s) => !operation.security.includes(s)))
      .map((scheme): CredentialPlan => ({ kind: "valid", scheme, origin: "own" })),
  );
  if (operation.security.length === 0) return wrong;
  const valid = fc.record({
    kind: fc.constant("valid" as const),
    scheme: fc.constantFrom(...operation.security),
    origin: fc.oneof({ arbitrary: fc.constant("own" as const), weight: 8 }, fc.constantFrom("none" as const, "foreign" as const)),
  });
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: wrong, weight: 1 });
}

/** Path segments that break a parameter's type, shape or size, or the routing itself. */
const brokenSegment: fc.Arbitrary<ParamPlan> = fc.oneof(
  fc.constantFrom(
    "", " ", "0", "-1", "1.5", "1e5", "0x10", "99999", "65536", "99999999999999999999", "null", "undefined", "NaN", "true", "[]", "{}",
    "__proto__", "constructor", "prototype", "i-", "i-abcdefghijklmnop", "key-abcdefghijkl", "acc-aaaaaaaaaaaaaaaa", "ü", "😀", "a b", "a/b",
  ).map((text): ParamPlan => ({ kind: "text", text, encode: true, valid: false })),
  fc.constantFrom("%", "%zz", "%00", "%FF", "%E0%A4%A", "%2F", "%2e%2e", "..", ".", "a%2Fb", "%C0%AF", "%ED%A0%80")
    .map((text): ParamPlan => ({ kind: "text", text, encode: false, valid: false })),
  fc.integer({ min: 300, max: 20_000 }).map((length): ParamPlan => ({ kind: "text", text: "p".repeat(length), encode: false, valid: false })),
  fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).map((text): ParamPlan => ({ kind: "text", text: text.toWellFormed(), encode: true, valid: false })),
);

function pathParamArbitrary(document: OpenApiDocument, operation: Operation, parameter: Parameter): fc.Arbitrary<ParamPlan> {
  const fixture = hasPathFixture(operation, parameter.name);
  const fromSchema = schemaArbitrary(document, parameter.schema).map((value): ParamPlan => ({ kind: "text", text: String(value), encode: true, valid: !fixture }));
  const valid = fixture
    ? fc.oneof({ arbitrary: fc.constant<ParamPlan>({ kind: "fixture" }), weight: 4 }, fromSchema)
    : fromSchema;
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: brokenSegment, weight: 1 });
}

function queryArbitrary(document: OpenApiDocument, parameters: Parameter[]): fc.Arbitrary<[string, string][]> {
  const broken = fc.oneof(
    fc.constantFrom("", "-1", "0", "1.5", "abc", "1e3", "99999999999999999999999", "%zz", "[]", "null", "__proto__", " 1"),
    fc.integer({ min: 1_000, max: 20_000 }).map((length) => "9".repeat(length)),
    fc.string({ maxLength: 20 }),
  );
  const perParameter = parameters.map((parameter) => {
    const valid = schemaArbitrary(document, parameter.schema).map((value) => [[parameter.name, String(value)]] as [string, string][]);
    return fc.oneof(
      { arbitrary: valid, weight: 4 },
      { arbitrary: fc.constant<[string, string][]>([]), weight: parameter.required ? 1 : 3 },
      { arbitrary: broken.map((value) => [[parameter.name, value]] as [string, string][]), weight: 2 },
      { arbitrary: fc.tuple(valid, valid).map(([a, b]) => [...a, ...b]), weight: 1 },
    );
  });
  const extra = fc.oneof(
    { arbitrary: fc.constant<[string, string][]>([]), weight: 4 },
    fc.constantFrom<[string, string][]>([["__proto__", "1"]], [["constructor", "x"]], [["__proto__[admin]", "1"]], [["unknown", "1"]], [["", ""]]),
  );
  return fc.tuple(fc.tuple(...perParameter), extra).map(([declared, more]) => [...declared.flat(), ...more]);
}

function headerParamsArbitrary(document: OpenApiDocument, parameters: Parameter[]): fc.Arbitrary<[string, string][]> {
  const perParameter = parameters.map((parameter) => {
    const valid = schemaArbitrary(document, parameter.schema)
      .filter((value) => /^[\x20-\x7e]*$/.test(String(value)))
      .map((value) => [[parameter.name, String(value).trim()]] as [string, string][]);
    const broken = fc.oneof(fc.constant(""), fc.integer({ min: 256, max: 20_000 }).map((length) => "i".repeat(length)))
      .map((value) => [[parameter.name, value]] as [string, string][]);
    return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: fc.constant<[string, string][]>([]), weight: 2 }, { arbitrary: broken, weight: 1 });
  });
  return fc.tuple(...perParameter).map((lists) => lists.flat());
}

function bodyArbitrary(document: OpenApiDocument, operation: Operation): fc.Arbitrary<BodyPlan | null> {
  if (BODYLESS_METHODS.has(operation.method)) return fc.constant(null);
  const anyJson = fc.jsonValue({ maxDepth: 2 }).map((value): BodyPlan => ({ label: "some JSON", contentType: "application/json", chunks: [toJsonText(value)] }));
  const stray = fc.oneof(
    anyJson,
    fc.tuple(wrongContentType, fc.string({ maxLength: 40 })).map(([contentType, text]): BodyPlan => ({ label: "some text", contentType, chunks: [text] })),
  );
  if (!operation.body) return fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: stray, weight: 1 });

  const schema = resolveRef(document, operation.body.schema);
  const generated = schemaArbitrary(document, schema, FIXED_FIELDS);
  const examples = VALID_BODIES[String(operation.body.schema.$ref).replace("#/components/schemas/", "")] ?? [];
  const valid = examples.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...examples), weight: 3 }, { arbitrary: generated, weight: 1 }) : generated;
  const json = (label: string, text: fc.Arbitrary<string>) =>
    fc.tuple(text, fc.oneof({ arbitrary: fc.constant<string>(JSON_CONTENT_TYPES[0]), weight: 4 }, fc.constantFrom(...JSON_CONTENT_TYPES)))
      .map(([body, contentType]): BodyPlan => ({ label, contentType, chunks: [body] }));
  return fc.oneof(
    { arbitrary: json("valid", valid.map(toJsonText)), weight: 8 },
    { arbitrary: json("a field broken", brokenObject(schema, valid)), weight: 6 },
    { arbitrary: json("not an object", notAnObject), weight: 2 },
    { arbitrary: json("not JSON", notJson), weight: 2 },
    {
      arbitrary: fc.tuple(valid.map(toJsonText), notUtf8).map(([text, bytes]): BodyPlan => ({
        label: "not UTF-8", contentType: "application/json", chunks: [text.slice(0, -1), `,"x":"`, bytes, `"}`],
      })),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(valid.map(toJsonText), fc.oneof(wrongContentType, fc.constant(null)))
        .map(([text, contentType]): BodyPlan => ({ label: "valid JSON, wrong or no content type", contentType, chunks: [text] })),
      weight: 3,
    },
    { arbitrary: fc.constantFrom<BodyPlan | null>(null, { label: "empty", contentType: "application/json", chunks: [] }), weight: 2 },
    {
      arbitrary: fc.integer({ min: 200_000, max: 3_000_000 }).map((length): BodyPlan => ({
        label: "huge", contentType: "application/json", chunks: [`{"x":"${"x".repeat(length)}"}`],
      })),
      weight: 1,
    },
  );
}

/** A valid object with one thing wrong: a required field gone, an unknown or prototype key, a wrong value. */
function brokenObject(schema: JsonSchema, valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  const required = (schema.required ?? []) as string[];
  const entriesOf = (value: unknown) => Object.entries(value as Record<string, unknown>);
  const asText = (entries: [string, unknown][], extra: string[] = []) => `{${[...entries.map(([k, v]) => member(k, v)), ...extra].join(",")}}`;
  const mutations: fc.Arbitrary<string>[] = [
    fc.tuple(valid, fc.constantFrom(...PROTOTYPE_KEYS, "", "unknown_field", "a".repeat(5_000)), wrongValue)
      .map(([value, key, extra]) => asText(entriesOf(value), [member(key, extra)])),
  ];
  if (properties.length > 0) {
    mutations.push(fc.tuple(valid, fc.constantFrom(...properties), wrongValue).map(([value, key, wrong]) =>
      asText([...entriesOf(value).filter(([k]) => k !== key), [key, wrong]])));
    // The same field twice, the second one wrong: JSON.parse keeps the last.
    mutations.push(fc.tuple(valid, fc.constantFrom(...properties), wrongValue).map(([value, key, wrong]) =>
      asText(entriesOf(value), [member(key, wrong)])));
  }
  if (required.length > 0) {
    mutations.push(fc.tuple(valid, fc.constantFrom(...required)).map(([value, key]) => asText(entriesOf(value).filter(([k]) => k !== key))));
  }
  return fc.oneof(...mutations);
}
