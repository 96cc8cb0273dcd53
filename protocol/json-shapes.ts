// Shapes of parsed JSON checked by hand, for the few decoders every proxied request passes through
// (codec.ts's stream frames, the Worker's proxy request header): each mirrors what its zod schema
// accepts, so a hand check and its schema agree.
export type Fields = Record<string, unknown>;

export const isFields = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);

/** z.number().int(): zod takes only safe integers. */
export const isInt = (value: unknown): value is number => Number.isSafeInteger(value);

export const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

/** z.array(z.tuple([z.string(), z.string()])): a header list as the contracts carry it. */
export const isHeaderList = (value: unknown): value is [string, string][] =>
  Array.isArray(value) && value.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" && typeof pair[1] === "string");
