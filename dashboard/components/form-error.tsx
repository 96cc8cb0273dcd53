// An error about a whole form or action (no single field caused it), announced when it appears.
export function FormError({ message }: { message: string | null }) {
  return message ? (
    <p role="alert" className="form-error">
      {message}
    </p>
  ) : null;
}
