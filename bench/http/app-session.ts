// Opens an instance web app as a browser would (POST …/ports/{port}/open, then its one-time ticket
// URL, which answers 302 with the app session cookie), for measuring the apps origin with a plain
// HTTP client: requests go to the stack's address with the app's Host and that cookie.
import { request } from "node:http";
import { callApi } from "./api-client.ts";

export interface AppOrigin {
  /** The app's host, `{instance id}-{port}.{APPS_DOMAIN}`. */
  host: string;
  /** `gpr_app=<session>`. */
  cookie: string;
}

export async function openAppOrigin(baseUrl: string, key: string, instanceId: string, port: number): Promise<AppOrigin> {
  const opened = await callApi<{ url: string }>(baseUrl, key, "POST", `/v1/instances/${instanceId}/ports/${port}/open`);
  if (opened.status !== 200) throw new Error(`opening the app: ${opened.status} ${JSON.stringify(opened.body)}`);
  const ticketUrl = new URL(opened.body.url);
  const stack = new URL(baseUrl);
  const setCookie = await new Promise<string[]>((resolve, reject) => {
    const req = request({ host: stack.hostname, port: stack.port, path: `${ticketUrl.pathname}${ticketUrl.search}`, headers: { host: ticketUrl.host } }, (res) => {
      res.resume();
      if (res.statusCode !== 302) reject(new Error(`the app's ticket answered ${res.statusCode}, not 302`));
      else resolve(res.headers["set-cookie"] ?? []);
    });
    req.on("error", reject);
    req.end();
  });
  const cookie = setCookie.map((line) => line.split(";")[0]!).find((pair) => pair.startsWith("gpr_app="));
  if (!cookie) throw new Error("the app's ticket set no gpr_app cookie");
  return { host: ticketUrl.host, cookie };
}
