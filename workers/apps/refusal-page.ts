// How an instance web app's origin refuses a request: a short HTML page for a person in a browser
// (who got there by a link or a reload, not through the dashboard), or the API's JSON error for a
// client that accepts JSON and not HTML.
import type { ApiError } from "../../core/errors.ts";

const ADVICE: Partial<Record<number, { title: string; advice: string }>> = {
  401: {
    title: "Open this app from the dashboard",
    advice: "This address opens only with a session of its own. On the instance's page in the dashboard, press Open beside the port.",
  },
  404: { title: "No such app", advice: "An app's address is its instance's id and the port, as the dashboard's Open button gives it." },
  409: { title: "The instance is not running", advice: "Start it from the dashboard, then open the app again." },
  413: { title: "Request too large", advice: "Request bodies are limited to 512 MB." },
  429: { title: "Too many requests", advice: "Wait a moment and reload." },
  502: { title: "The app does not answer", advice: "Nothing answers on the port yet (it may still be loading), or the host is offline. Reload in a moment." },
};

export function refusalResponse(error: ApiError, accept: string | null): Response {
  if (acceptsJsonNotHtml(accept)) return error.toResponse();
  const { title, advice } = ADVICE[error.status] ?? { title: "The app cannot be opened", advice: "Try again in a moment." };
  const page = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">',
    `<h1>${title}</h1>`,
    `<p>${escapeHtml(error.message)}</p>`,
    `<p>${advice}</p>`,
    "</body></html>",
  ].join("\n");
  return new Response(page, {
    status: error.status,
    headers: {
      ...error.headers,
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // Nothing but the inline style above may run or load on this page.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
    },
  });
}

/** Whether `accept` names a JSON type and no HTML one (a browser's navigation names text/html; `*` alone names neither). */
export function acceptsJsonNotHtml(accept: string | null): boolean {
  const types = (accept ?? "").split(",").map((part) => part.split(";")[0]!.trim().toLowerCase());
  const json = types.some((type) => type === "application/json" || /^application\/[\w.-]+\+json$/.test(type));
  const html = types.some((type) => type === "text/html" || type === "application/xhtml+xml");
  return json && !html;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);
