// docs/api.md's reference part, rendered from the OpenAPI document: every operation (method, path,
// summary, description, authentication, parameters, request body fields, responses and errors) and
// every schema. The file's introduction above REFERENCE_MARKER is hand-written and kept as it is;
// `npm run openapi` rewrites what follows the marker, and scripts/openapi.test.ts fails when it is stale.

export const REFERENCE_MARKER =
  "<!-- Everything below is generated from openapi.json by `npm run openapi` (scripts/api-reference.ts): edit the routes' schemas, not this. -->";

interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  example?: unknown;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  /** A tag, where an operation names one, is its group; otherwise the group comes from the path. */
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Schema }> }>;
}

interface SecurityScheme {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
  description?: string;
}

export interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, SecurityScheme> };
}

const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"];

/** The whole of docs/api.md: `current`'s introduction (everything before the marker), then the reference. */
export function apiMarkdown(current: string, document: ApiDocument): string {
  const at = current.indexOf(REFERENCE_MARKER);
  if (at < 0) throw new Error(`docs/api.md lacks the line ${REFERENCE_MARKER}`);
  return `${current.slice(0, at)}${REFERENCE_MARKER}\n\n${renderReference(document)}`;
}

export function renderReference(document: ApiDocument): string {
  const schemes = document.components?.securitySchemes ?? {};
  const schemas = document.components?.schemas ?? {};
  const groups = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const group = operation.tags?.[0] ?? groupOf(path);
      groups.set(group, [...(groups.get(group) ?? []), renderOperation(method, path, operation, schemes, schemas)]);
    }
  }
  // The customer API first, the operator's after it; each in path order.
  const ordered = [...groups.keys()].sort((a, b) => Number(a.startsWith("operator")) - Number(b.startsWith("operator")));
  const out = ["## Operations", ""];
  out.push(...ordered.map((group) => `- [${group}](#${slug(group)}): ${plural(groups.get(group)!.length, "operation")}`), "");
  for (const group of ordered) out.push(`### ${group}`, "", ...groups.get(group)!);
  out.push("## Schemas", "", "The named objects the operations take and answer with.", "");
  for (const [name, schema] of Object.entries(schemas)) {
    out.push(`<a id="schema-${name.toLowerCase()}"></a>`, "", `### ${name}`, "");
    if (schema.description) out.push(schema.description, "");
    out.push(...fieldTable(schema, schemas), "");
  }
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}

/** Operations are grouped by what their path is about: `/v1/instances/...` is "instances", `/admin/v1/machines` "operator: machines". */
function groupOf(path: string): string {
  const segments = path.split("/").filter(Boolean);
  if (segments[0] === "admin") return `operator: ${segments[2] ?? "other"}`;
  return segments[1] ?? "other";
}

function renderOperation(
  method: string, path: string, operation: Operation, schemes: Record<string, SecurityScheme>, schemas: Record<string, Schema>,
): string {
  const out = [`#### \`${method.toUpperCase()} ${path}\``, ""];
  if (operation.summary) out.push(`**${operation.summary}.**`, "");
  if (operation.description) out.push(operation.description, "");
  out.push(...authentication(operation.security, schemes), "");
  const parameters = operation.parameters ?? [];
  if (parameters.length > 0) {
    out.push("| parameter | in | type | required | description |", "|---|---|---|---|---|");
    for (const parameter of parameters) {
      const description = [parameter.description ?? "", describe({ ...parameter.schema, description: parameter.description ? undefined : parameter.schema?.description })];
      out.push(row([code(parameter.name), parameter.in, typeOf(parameter.schema ?? {}), parameter.required ? "yes" : "no", description.filter(Boolean).join("; ")]));
    }
    out.push("");
  }
  for (const [mediaType, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
    const optional = operation.requestBody?.required ? "" : ", optional: none is `{}`";
    out.push(`Request body (\`${mediaType}\`${schema?.$ref ? `, ${schemaLink(schema.$ref)}` : ""}${optional}):`, "");
    out.push(...fieldTable(schema ?? {}, schemas), "");
  }
  out.push("| status | meaning | body |", "|---|---|---|");
  for (const [status, response] of Object.entries(operation.responses)) {
    const bodies = Object.entries(response.content ?? {}).map(([mediaType, { schema }]) => `\`${mediaType}\`${schema ? ` ${typeOf(schema)}` : ""}`);
    out.push(row([status, response.description, bodies.join("; ") || "none"]));
  }
  out.push("");
  return out.join("\n");
}

function authentication(security: Operation["security"], schemes: Record<string, SecurityScheme>): string[] {
  if (!security || security.length === 0) return ["Authentication: none."];
  const ways = security.flatMap((requirement) => Object.keys(requirement)).map((name) => {
    const scheme = schemes[name];
    const how = scheme?.type === "http" ? "`Authorization: Bearer`" : scheme?.in === "cookie" ? `the cookie ${code(scheme.name ?? name)}` : code(name);
    return scheme?.description ? `${how}: ${scheme.description}` : how;
  });
  return ways.length === 1 ? [`Authentication: ${ways[0]}`] : ["Authentication, any one of:", "", ...ways.map((way) => `- ${way}`)];
}

/** One row per field, nested objects flattened (`account.id`, `items[].kind`); a named schema's own fields in place. */
function fieldTable(schema: Schema, schemas: Record<string, Schema>): string[] {
  const fields = flatten(schema, "", schemas);
  if (fields.length === 0) return [`A value of type ${typeOf(schema)}.`];
  return ["| field | type | required | description |", "|---|---|---|---|", ...fields];
}

function flatten(schema: Schema, prefix: string, schemas: Record<string, Schema>): string[] {
  const resolved = schema.$ref ? (schemas[schema.$ref.split("/").at(-1)!] ?? {}) : schema;
  if (resolved.allOf) return resolved.allOf.flatMap((part) => flatten(part, prefix, schemas));
  const rows: string[] = [];
  for (const [name, field] of Object.entries(resolved.properties ?? {})) {
    const path = `${prefix}${name}`;
    const nested = field.type === "object" && field.properties ? field : field.type === "array" && field.items?.properties ? field.items : null;
    rows.push(row([code(path), typeOf(field), resolved.required?.includes(name) ? "yes" : "no", describe(field)]));
    if (nested) rows.push(...flatten(nested, field.type === "array" ? `${path}[].` : `${path}.`, schemas));
  }
  return rows;
}

function describe(schema: Schema): string {
  const notes = [schema.description ?? ""];
  if (schema.pattern) notes.push(`pattern ${code(schema.pattern)}`);
  if (schema.example !== undefined && typeof schema.example !== "object") notes.push(`e.g. ${code(String(schema.example))}`);
  return notes.filter(Boolean).join("; ");
}

function typeOf(schema: Schema): string {
  if (schema.$ref) return schemaLink(schema.$ref);
  if (schema.allOf) return schema.allOf.map(typeOf).join(" and ");
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(" or ");
  if (schema.enum) return `one of ${schema.enum.map((value) => code(JSON.stringify(value))).join(", ")}`;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "any"];
  return types.map((type) => describeType(type, schema)).join(" or ");
}

function describeType(type: string, schema: Schema): string {
  if (type === "array") return `array of ${typeOf(schema.items ?? {})}`;
  if (type === "object" && typeof schema.additionalProperties === "object") return `object of ${typeOf(schema.additionalProperties)}`;
  const limits: string[] = [];
  if (schema.format) limits.push(schema.format);
  if (schema.minimum !== undefined && schema.maximum !== undefined) limits.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) limits.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) limits.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined) limits.push(`${schema.minLength} to ${schema.maxLength} characters`);
  else if (schema.minLength === 1) limits.push("not empty");
  else if (schema.minLength !== undefined) limits.push(`at least ${schema.minLength} characters`);
  else if (schema.maxLength !== undefined) limits.push(`at most ${schema.maxLength} characters`);
  return limits.length > 0 ? `${type} (${limits.join(", ")})` : type;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

function schemaLink(ref: string): string {
  const name = ref.split("/").at(-1)!;
  return `[${name}](#schema-${name.toLowerCase()})`;
}

/** A code span; one holding a backtick is fenced with two. */
const code = (text: string) => (text.includes("`") ? `\`\` ${text} \`\`` : `\`${text}\``);

/** A table row: pipes and line breaks inside a cell would break the table. */
const row = (cells: string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, "\\|").replace(/\n+/g, " ")).join(" | ")} |`;

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9 -]/g, "").replace(/ /g, "-");
