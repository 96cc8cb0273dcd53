// What every response must be, whatever the request: no 5xx; an X-Request-Id; an error body exactly
// {error, message} with a known code and its status; a status the operation documents; no internals
// (stack traces, file paths, JavaScript error names, SQL) in any body; and a success body that
// validates against the operation's declared schema, its whole numbers exact (amounts are integer
// micro-dollars: one past 2^53 has lost its last digits). @cfworker/json-schema interprets schemas, so it
// runs inside workerd, which forbids the code generation other validators rely on.
import { Validator, type Schema } from "@cfworker/json-schema";
import { STATUS_OF, type ErrorCode } from "../../core/errors.ts";
import { UPSTREAM_HEADER } from "./fuzz-fixture.ts";
import { PLAIN_TEXT_BODY, type JsonSchema, type OpenApiDocument, type Operation } from "./openapi-operations.ts";
import type { SentRequest } from "./request-run.ts";

const INTERNALS: RegExp[] = [
  /\n\s+at \S/, /\bat \S+ \(\S*:\d+:\d+\)/, /\.(m?[jt]s|cjs):\d+/, /node_modules|\/work\/|file:\/\/|workerd|miniflare/i,
  /\b(TypeError|ReferenceError|RangeError|SyntaxError|URIError|EvalError|AggregateError)\b/,
  /SQLITE_|SQL logic error|no such (table|column)|constraint failed|near "\S+": syntax error/i,
  /Unexpected token|Unexpected end of JSON|in JSON at position|Cannot read propert|is not a function|is not defined|\[object Object\]/,
];

export class ResponseChecker {
  private readonly validators = new Map<string, Validator>();
  private readonly document: OpenApiDocument;

  constructor(document: OpenApiDocument) {
    this.document = document;
  }

  /** The rules `response` breaks (none: an empty list). */
  async check(operation: Operation, sent: SentRequest, response: Response): Promise<string[]> {
    const problems: string[] = [];
    const status = response.status;
    // Through the proxy, the server inside the instance answered: its body is its own business.
    const upstream = response.headers.get(UPSTREAM_HEADER) === "1";
    if (response.webSocket) {
      response.webSocket.accept();
      response.webSocket.close(1000, "fuzz");
    }
    const text = response.webSocket ? "" : await response.text();
    if (status >= 500) problems.push(`status ${status}`);
    if (!/^req_[a-z2-7]{20}$/.test(response.headers.get("x-request-id") ?? "")) problems.push(`X-Request-Id is ${JSON.stringify(response.headers.get("x-request-id"))}`);
    if (upstream) return problems;

    const declared = operation.responses[String(status)];
    if (declared === undefined && !(status === 404 && sent.brokenPath)) problems.push(`status ${status} is not documented for ${operation.key}`);
    for (const pattern of INTERNALS) if (pattern.test(text)) problems.push(`the body shows internals (${pattern}): ${excerpt(text)}`);

    if (sent.method === "HEAD") {
      if (text !== "") problems.push(`a HEAD response has a body: ${excerpt(text)}`);
    } else if (status >= 400) problems.push(...errorBodyProblems(status, response, text));
    else if (status >= 200 && status < 300) problems.push(...this.successBodyProblems(operation, status, sent, response, text, declared ?? null));
    return problems;
  }

  private successBodyProblems(operation: Operation, status: number, sent: SentRequest, response: Response, text: string, schema: JsonSchema | null): string[] {
    if (schema === null) return text === "" ? [] : [`a ${status} without a declared body has one: ${excerpt(text)}`];
    if (schema === PLAIN_TEXT_BODY) return /^text\//.test(response.headers.get("content-type") ?? "") ? [] : [`a ${status} body is ${response.headers.get("content-type")}, not text`];
    if (!/^application\/json\b/.test(response.headers.get("content-type") ?? "")) return [`a ${status} body is ${response.headers.get("content-type")}, not JSON`];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`a ${status} body is not JSON: ${excerpt(text)}`];
    }
    const key = `${operation.key} ${status}`;
    let validator = this.validators.get(key);
    if (!validator) {
      // The response schema with the document's components beside it, so its $refs resolve.
      validator = new Validator({ ...schema, components: this.document.components } as Schema, "2020-12", false);
      this.validators.set(key, validator);
    }
    const result = validator.validate(body);
    const problems = result.valid ? [] : [`the ${status} body does not match its schema: ${result.errors.map((e) => `${e.instanceLocation} ${e.error}`).join("; ")} in ${excerpt(text)}`];
    const inexact = inexactNumber(body);
    if (inexact !== null) problems.push(`the ${status} body holds ${inexact}, past the exact integers of a JSON number: ${excerpt(text)}`);
    return problems;
  }
}

function errorBodyProblems(status: number, response: Response, text: string): string[] {
  if (!/^application\/json\b/.test(response.headers.get("content-type") ?? "")) return [`a ${status} error is ${response.headers.get("content-type")}, not JSON: ${excerpt(text)}`];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`a ${status} error body is not JSON: ${excerpt(text)}`];
  }
  const record = body as Record<string, unknown>;
  if (typeof body !== "object" || body === null || Object.keys(body).sort().join() !== "error,message") return [`a ${status} error body is not exactly {error, message}: ${excerpt(text)}`];
  const problems: string[] = [];
  if (typeof record.message !== "string" || record.message === "") problems.push(`a ${status} error has no message: ${excerpt(text)}`);
  const code = record.error as ErrorCode;
  if (!Object.hasOwn(STATUS_OF, code)) problems.push(`unknown error code ${JSON.stringify(code)}`);
  else if (STATUS_OF[code] !== status) problems.push(`error ${code} came with status ${status}, not ${STATUS_OF[code]}`);
  return problems;
}

/** A whole number beyond ±(2^53 - 1) anywhere in `value`, or null. */
function inexactNumber(value: unknown): number | null {
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === "number" && Number.isInteger(node) && !Number.isSafeInteger(node)) return node;
    if (typeof node === "object" && node !== null) pending.push(...Object.values(node));
  }
  return null;
}

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text);
