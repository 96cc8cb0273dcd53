// The client's address as Cloudflare hands it to the Worker (CF-Connecting-IP; X-Real-IP where a
// local proxy sets it): the key of the rate limits, and what the audit log records of who changed
// something.
export function callerIp(request: Request): string | null {
  return request.headers.get("cf-connecting-ip") ?? request.headers.get("x-real-ip");
}
