// A browser's view of one site, for tests of people signed in with the session cookie: the cookie it
// keeps (set and cleared by the service's answers), and the Origin its pages send with every request
// that changes something.
export class SessionBrowser {
  cookie: string | null = null;
  readonly #baseUrl: string;

  constructor(baseUrl: string) {
    this.#baseUrl = baseUrl;
  }

  async send<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.#baseUrl}${path}`, {
      method,
      headers: {
        ...(this.cookie ? { cookie: `gpr_session=${this.cookie}` } : {}),
        ...(method === "GET" ? {} : { origin: this.#baseUrl }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = response.headers.getSetCookie().find((c) => c.startsWith("gpr_session="));
    if (set) {
      const value = set.slice("gpr_session=".length).split(";")[0]!;
      this.cookie = value === "" ? null : value;
    }
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }
}
