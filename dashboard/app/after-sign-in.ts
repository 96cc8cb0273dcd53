// Where the dashboard goes once someone signs in: back to the page that sent them to sign in
// (/login?next=/billing), if that is a page of this site, else the overview.
export function pageAfterSignIn(location: string): string {
  const next = new URLSearchParams(location.split("?")[1] ?? "").get("next");
  // A path of this site only: "//host" and "/\host" (a backslash) would leave it.
  return next && /^\/(?![\\/])/.test(next) ? next : "/";
}
