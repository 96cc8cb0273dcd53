// The one-time ticket in an app address (`?gpr_ticket=...`), and the same address without it, its
// other query parameters left exactly as sent.
import { APP_TICKET_PARAM } from "../http/app-origin.ts";

/** The ticket the URL carries, or null. */
export function ticketOf(rawUrl: string): string | null {
  return new URL(rawUrl).searchParams.get(APP_TICKET_PARAM);
}

/** `rawUrl` without its ticket parameter(s) (and without a `?` when nothing else is left). */
export function withoutTicket(rawUrl: string): string {
  const queryAt = rawUrl.indexOf("?");
  if (queryAt < 0) return rawUrl;
  const kept = rawUrl.slice(queryAt + 1).split("&").filter((part) => decodedName(part) !== APP_TICKET_PARAM);
  return rawUrl.slice(0, queryAt) + (kept.length > 0 ? `?${kept.join("&")}` : "");
}

function decodedName(part: string): string {
  const name = part.split("=", 1)[0]!.replace(/\+/g, " ");
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
