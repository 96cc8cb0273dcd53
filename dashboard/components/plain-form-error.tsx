// An API refusal of a whole form or action, in the dashboard's words (format/plain-errors.ts): what
// happened in dollars, a link to what fixes it, and the API's own message in a collapsed details line.
import { GpuApiError } from "../../client/index.ts";
import { formError } from "../api/api-errors.ts";
import { plainError, type MoneyContext } from "../format/plain-errors.ts";
import { Link } from "../router/router.tsx";

interface PlainFormErrorProps {
  error: unknown;
  /** The form's fields: an error naming one is shown beside it instead. */
  fields: readonly string[];
  money?: MoneyContext;
}

export function PlainFormError({ error, fields, money }: PlainFormErrorProps) {
  const message = formError(error, fields);
  if (message === null) return null;
  const plain = error instanceof GpuApiError ? plainError(error, money) : { text: message };
  return (
    <div role="alert" className="form-error">
      <p>
        {plain.text} {plain.action && <Link to={plain.action.to}>{plain.action.label}</Link>}
      </p>
      {plain.details && (
        <details>
          <summary>Details</summary>
          {plain.details}
        </details>
      )}
    </div>
  );
}
