// The one error of the typed client: an API answer that is not a success, with its status and the
// service's `{"error", "message"}` (or a stand-in when something else answered, such as a gateway).
export class GpuApiError extends Error {
  override readonly name = "GpuApiError";
  readonly status: number;
  /** The service's error code (`invalid`, `not_found`, ...), or `http_<status>` for a body of another shape. */
  readonly error: string;
  readonly requestId: string | null;

  constructor(status: number, error: string, message: string, requestId: string | null = null) {
    super(message);
    this.status = status;
    this.error = error;
    this.requestId = requestId;
  }

  /** Reads an error response's body (consuming it). */
  static async fromResponse(response: Response): Promise<GpuApiError> {
    const text = await response.text().catch(() => "");
    const requestId = response.headers.get("x-request-id");
    const body = parseJson(text);
    if (typeof body?.error === "string" && typeof body.message === "string") {
      return new GpuApiError(response.status, body.error, body.message, requestId);
    }
    const detail = text.trim().slice(0, 200) || response.statusText || "no body";
    return new GpuApiError(response.status, `http_${response.status}`, `HTTP ${response.status}: ${detail}`, requestId);
  }
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
