// Apps under the apps domain are same-site with each other (and anything else under it): a page of
// one tenant's app could send requests to another's, and the browser would attach that app's
// session (SameSite=Lax lets same-site requests carry it). A browser says where a request comes
// from (Fetch Metadata): from another site, only a page being opened (a GET navigation: a person
// following the dashboard's Open or a link) is let through; a script's fetch, a form's POST, an
// image or a frame's subresource from another site is refused. Clients that send no Fetch Metadata (curl, SDKs) are no
// browser acting for someone else, and pass.

/** Why the request is refused, or null when it may go on. */
export function otherSiteRefusal(method: string, headers: Headers): string | null {
  const site = headers.get("sec-fetch-site");
  if (site !== "same-site" && site !== "cross-site") return null;
  if (headers.get("sec-fetch-mode") === "navigate" && (method === "GET" || method === "HEAD")) return null;
  return `a request from another site (Sec-Fetch-Site: ${site}) may only open this app as a page, not call it: an app's address is for its own pages and for people opening it`;
}
