// The query of one part of a resumable upload (`upload`, `offset`, `final`), the same for an
// instance's files route and a volume's: the client's id of the upload, where the part starts in the
// file, and whether it is the last.
import { z } from "@hono/zod-openapi";
import { UPLOAD_ID_PATTERN } from "../../../protocol/messages.ts";

const partRule = "must be a whole number of bytes already sent (0 for the first part)";

export const uploadPartFields = {
  upload: z
    .string()
    .regex(UPLOAD_ID_PATTERN, "must be 16 to 64 of A-Z, a-z, 0-9, _ and -")
    .optional()
    .openapi({ param: { name: "upload", in: "query", description: "The client's id of a resumable upload: the body is then one part, the file's bytes from `offset`" }, example: "4fQm2x9LrT0aZk7wB1cD" }),
  offset: z
    .string()
    .regex(/^\d{1,16}$/, partRule)
    .transform(Number)
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER, partRule))
    .optional()
    .openapi({ param: { name: "offset", in: "query", description: "Where this part starts in the file: the bytes staged so far (`Upload-Offset`)" }, type: "integer", minimum: 0, example: 0 }),
};

/** `final`'s field; `written`: where the last part puts the file. */
export const finalField = (written: string) =>
  z
    .enum(["1"], "must be 1")
    .optional()
    .openapi({ param: { name: "final", in: "query", description: `1 on the last part: the file is then written into ${written}` } });

/** `offset` and `final` only with `upload`, which needs `offset`; `path` names a file then (`fileRule` says why it does not). */
export function checkUploadPart(
  query: { path: string; upload?: string; offset?: number; final?: string },
  context: z.RefinementCtx,
  fileRule: (path: string) => string | null,
): void {
  const issue = (field: string, message: string) => context.addIssue({ code: "custom", path: [field], message });
  if (query.upload === undefined) {
    if (query.offset !== undefined) issue("offset", "is only taken with upload");
    if (query.final !== undefined) issue("final", "is only taken with upload");
    return;
  }
  if (query.offset === undefined) issue("offset", "is required with upload");
  const notFile = fileRule(query.path);
  if (notFile !== null) issue("path", notFile);
}

/** The 202 of a part staged. */
export const partStaged = {
  202: { description: "The part is staged", headers: { "Upload-Offset": { description: "The bytes of the file staged so far", schema: { type: "integer" as const } } } },
};
