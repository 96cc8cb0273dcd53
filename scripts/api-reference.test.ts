import { describe, expect, it } from "vitest";
import { apiMarkdown, REFERENCE_MARKER, renderReference, type ApiDocument } from "./api-reference.ts";

const error = { description: "Operator token missing or wrong (unauthorized)", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const document: ApiDocument = {
  paths: {
    "/admin/v1/machines": { get: { summary: "Machines", description: "Every machine.", security: [{ adminAuth: [] }], responses: { 200: { description: "Machines" }, 401: error } } },
    // A route no code here knows of: it lands in a group of its own, without any edit.
    "/v1/apps/{id}/open": {
      post: {
        summary: "Open an app",
        description: "A ticket for the app.",
        security: [{ bearerAuth: [] }, { sessionCookie: [] }],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", example: "i-abcdefghijklmnop" } }],
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Open" } } } },
        responses: { 201: { description: "The ticket", content: { "application/json": { schema: { $ref: "#/components/schemas/Ticket" } } } }, 401: error },
      },
    },
  },
  components: {
    securitySchemes: {
      adminAuth: { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN" },
      bearerAuth: { type: "http", scheme: "bearer", description: "An API key: gpk_..." },
      sessionCookie: { type: "apiKey", in: "cookie", name: "gpr_session", description: "A browser's session" },
    },
    schemas: {
      Error: { type: "object", properties: { error: { type: "string" }, message: { type: "string" } }, required: ["error", "message"] },
      Open: {
        type: "object",
        properties: {
          port: { type: "integer", minimum: 1, maximum: 65535, description: "The app's port" },
          note: { type: ["string", "null"], pattern: "^[a-z`|]*$" },
          options: { type: "object", properties: { mode: { type: "string", enum: ["tab", "window"] } }, required: ["mode"] },
        },
        required: ["port"],
      },
      Ticket: { allOf: [{ $ref: "#/components/schemas/Error" }, { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] }] },
    },
  },
};

describe("the API reference", () => {
  const text = renderReference(document);

  it("groups operations by their path, the customer API before the operator's, a new route in a group of its own", () => {
    expect(text.indexOf("### apps")).toBeGreaterThan(0);
    expect(text.indexOf("### apps")).toBeLessThan(text.indexOf("### operator: machines"));
    expect(text).toContain("- [apps](#apps): 1 operation\n- [operator: machines](#operator-machines): 1 operation");
  });

  it("gives each operation its method and path, summary, description, authentication, parameters, body fields and responses", () => {
    const operation = text.slice(text.indexOf("#### `POST /v1/apps/{id}/open`"), text.indexOf("### operator"));
    expect(operation).toContain("**Open an app.**\n\nA ticket for the app.");
    expect(operation).toContain("Authentication, any one of:\n\n- `Authorization: Bearer`: An API key: gpk_...\n- the cookie `gpr_session`: A browser's session");
    expect(operation).toContain("| `id` | path | string | yes | e.g. `i-abcdefghijklmnop` |");
    expect(operation).toContain("Request body (`application/json`, [Open](#schema-open)):");
    expect(operation).toContain("| `port` | integer (1 to 65535) | yes | The app's port |");
    expect(operation).toContain("| `options.mode` | one of `\"tab\"`, `\"window\"` | yes |  |");
    expect(operation).toContain("| 201 | The ticket | `application/json` [Ticket](#schema-ticket) |");
    expect(operation).toContain("| 401 | Operator token missing or wrong (unauthorized) | `application/json` [Error](#schema-error) |");
  });

  it("keeps a table whole when a cell holds a pipe or a backtick", () => {
    expect(text).toContain("| `note` | string or null | no | pattern `` ^[a-z`\\|]*$ `` |");
  });

  it("lists every schema with its fields, an allOf's parts merged", () => {
    expect(text).toContain('<a id="schema-ticket"></a>\n\n### Ticket\n\n| field | type | required | description |\n|---|---|---|---|\n| `error` | string | yes |  |\n| `message` | string | yes |  |\n| `url` | string (uri) | yes |  |');
    expect(text).toContain("Authentication: `Authorization: Bearer`: The ADMIN_TOKEN");
  });

  it("keeps the hand-written introduction and replaces what follows the marker", () => {
    const current = `# API\n\nIntroduction.\n\n${REFERENCE_MARKER}\n\nstale reference\n`;
    const updated = apiMarkdown(current, document);
    expect(updated.startsWith(`# API\n\nIntroduction.\n\n${REFERENCE_MARKER}\n\n## Operations\n`)).toBe(true);
    expect(updated).not.toContain("stale reference");
    expect(() => apiMarkdown("# API\n", document)).toThrow(/lacks the line/);
  });
});
