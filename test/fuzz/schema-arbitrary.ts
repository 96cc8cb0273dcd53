// Values that satisfy a JSON Schema of the document, as fast-check arbitraries: the "valid" half of
// the fuzz test's inputs. Properties named in `fixedFields` always take that value instead.
import fc from "fast-check";
import { resolveRef, type JsonSchema, type OpenApiDocument } from "./openapi-operations.ts";

/** Long enough to cross every length rule in the document, short enough to stay fast. */
const MAX_GENERATED_LENGTH = 80;
const MAX_ITEMS = 4;

export function schemaArbitrary(document: OpenApiDocument, schema: JsonSchema, fixedFields: Readonly<Record<string, unknown>> = {}): fc.Arbitrary<unknown> {
  const arbitraryOf = (raw: JsonSchema): fc.Arbitrary<unknown> => {
    const s = resolveRef(document, raw);
    if ("const" in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    const alternatives = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
    if (alternatives) return fc.oneof(...alternatives.map(arbitraryOf));
    if (Array.isArray(s.allOf)) return arbitraryOf(s.allOf[0] as JsonSchema);
    if (Array.isArray(s.type)) return fc.oneof(...(s.type as string[]).map((type) => arbitraryOf({ ...s, type })));
    switch (s.type) {
      case "string": return stringArbitrary(s);
      case "integer": return integerArbitrary(s);
      case "number": return fc.double({ min: num(s.minimum, -1e9), max: num(s.maximum, 1e9), noNaN: true, noDefaultInfinity: true });
      case "boolean": return fc.boolean();
      case "null": return fc.constant(null);
      case "array": return fc.array(arbitraryOf((s.items as JsonSchema) ?? {}), {
        minLength: num(s.minItems, 0), maxLength: Math.min(num(s.maxItems, MAX_ITEMS), Math.max(MAX_ITEMS, num(s.minItems, 0))),
      });
      case "object": return objectArbitrary(s);
      default: return fc.jsonValue({ maxDepth: 2 });
    }
  };

  const objectArbitrary = (s: JsonSchema): fc.Arbitrary<unknown> => {
    const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((s.required ?? []) as string[]);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of Object.entries(properties)) {
      model[name] = Object.hasOwn(fixedFields, name) ? fc.constant(fixedFields[name]) : arbitraryOf(property);
    }
    const fixed = fc.record(model, { requiredKeys: [...required].filter((name) => name in properties) });
    const extra = s.additionalProperties;
    if (typeof extra !== "object" || extra === null) return fixed;
    return fc.tuple(fixed, fc.dictionary(fc.string({ minLength: 1, maxLength: 20 }), arbitraryOf(extra as JsonSchema), { maxKeys: MAX_ITEMS }))
      .map(([known, more]) => ({ ...more, ...known }));
  };

  return arbitraryOf(schema);
}

function stringArbitrary(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = num(s.minLength, 0);
  const maxLength = Math.max(minLength, Math.min(num(s.maxLength, MAX_GENERATED_LENGTH), MAX_GENERATED_LENGTH));
  const fits = (text: string) => text.length >= minLength && text.length <= num(s.maxLength, Infinity);
  if (typeof s.pattern === "string") return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
  if (s.format === "date-time") return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ minLength, maxLength, unit: "grapheme" }));
}

function integerArbitrary(s: JsonSchema): fc.Arbitrary<number> {
  const min = num(s.minimum, Number.MIN_SAFE_INTEGER);
  const max = num(s.maximum, Number.MAX_SAFE_INTEGER);
  const near = fc.integer({ min: Math.max(min, -1000), max: Math.min(max, Math.max(min, -1000) + 2000) });
  return fc.oneof(
    { arbitrary: near, weight: 3 },
    { arbitrary: fc.bigInt(BigInt(min), BigInt(max)).map(Number), weight: 1 },
    // The bounds themselves: where sums of amounts overflow.
    { arbitrary: fc.constantFrom(min, max), weight: 1 },
  );
}

const num = (value: unknown, fallback: number): number => (typeof value === "number" ? value : fallback);
