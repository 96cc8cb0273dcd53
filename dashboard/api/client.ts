// The dashboard's one API client: the typed client on this page's own origin. The browser sends the
// session cookie and, on requests that change something, the Origin header the API asks for.
import { createGpuClient } from "../../client/index.ts";

export const api = createGpuClient({ baseUrl: window.location.origin });
