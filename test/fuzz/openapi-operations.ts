// The operations of the API's OpenAPI document as the fuzz test walks them: every path and method
// with its parameters, body, security schemes and declared responses. New routes appear here by
// themselves, because the document is generated from the routes.

/** A JSON Schema object as the document holds it (`$ref`s into components.schemas included). */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas?: Record<string, JsonSchema> };
}

interface RawOperation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** "POST /v1/keys": how lists, reports and replays name the operation. */
  key: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** The JSON body, when the operation declares one. */
  body: { required: boolean; schema: JsonSchema } | null;
  /** Security schemes, any one of which lets a request in; empty for public operations. */
  security: string[];
  /** Declared statuses ("200", "404", "default") and the JSON schema of each one's body, if any (PLAIN_TEXT_BODY: a text/plain one). */
  responses: Record<string, JsonSchema | null>;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

/** A response declared as text/plain (GET /v1/metrics' exposition, a log's lines or events): checked for a text media type, its text free. */
export const PLAIN_TEXT_BODY: JsonSchema = { type: "string", contentMediaType: "text/plain" };

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const content = raw.requestBody?.content ?? {};
      const jsonType = Object.keys(content).find((type) => /^application\/([\w.-]+\+)?json$/.test(type));
      if (raw.requestBody && !jsonType) throw new Error(`${method} ${path}: a body that is not JSON; teach the fuzz test its media type`);
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: (raw.parameters ?? []).map((p) => ({
          name: p.name, in: p.in as Parameter["in"], required: p.required === true, schema: p.schema ?? {},
        })),
        body: jsonType ? { required: raw.requestBody?.required === true, schema: content[jsonType]!.schema ?? {} } : null,
        security: [...new Set((raw.security ?? []).flatMap((requirement) => Object.keys(requirement)))],
        responses: Object.fromEntries(
          Object.entries(raw.responses).map(([status, response]) => [
            status, response.content?.["application/json"]?.schema ?? (response.content?.["text/plain"] ? PLAIN_TEXT_BODY : null),
          ]),
        ),
      });
    }
  }
  return operations.sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));
}

/** The schema a `$ref` points at (components.schemas only, as the generator writes them). */
export function resolveRef(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
  const target = name ? document.components.schemas?.[name] : undefined;
  if (!target) throw new Error(`unresolvable $ref ${ref}`);
  return resolveRef(document, target);
}
