// What a page shows while its data loads, or when loading failed, so no page is ever blank.
import { messageOf } from "../api/api-errors.ts";

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

export function LoadError({ what, error }: { what: string; error: unknown }) {
  return (
    <p role="alert" className="form-error">
      Could not load {what}: {messageOf(error)}
    </p>
  );
}
