// A request every /v1 route takes as far as its account, naming nothing that exists: for the tests
// generated from the route table (every route with every role, and with every scope).

/** A request each route takes as far as its account (valid, naming nothing that exists): a route with a body needs one here. */
export const REQUESTS: Record<string, { body?: unknown; rawBody?: string; query?: string; headers?: Record<string, string> }> = {
  "PATCH /account": { body: { name: "Acme" } },
  "POST /instances": { body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } },
  "PATCH /instances/{id}": { body: { label: "x" } },
  "GET /instances/{id}/files": { query: "?path=/tmp" },
  "PUT /instances/{id}/files": { query: "?path=/tmp", rawBody: "", headers: { "content-type": "application/x-tar" } },
  "POST /volumes": { body: { name: "roles", size_gb: 1 } },
  "PATCH /volumes/{id}": { body: { name: "renamed" } },
  "POST /volumes/{id}/snapshots": { body: {} },
  "GET /volumes/{id}/files": { query: "?path=/" },
  "PUT /volumes/{id}/files": { query: "?path=/", rawBody: "", headers: { "content-type": "application/x-tar" } },
  "POST /keys": { body: {} },
  "POST /ssh-keys": { body: { public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@laptop" } },
  "POST /billing/checkout": { body: { amount_micros: 10_000_000 } },
  "POST /webhooks": { body: { url: "https://hooks.example.com/gpu" } },
  "PATCH /webhooks/{id}": { body: { enabled: true } },
  "POST /members/invitations": { body: { email: "invited@example.com", role: "viewer" } },
  "PATCH /members/{user_id}": { body: { role: "viewer" } },
};

/** Path parameters that name nothing in the account. */
export const PARAMS: Record<string, string> = {
  id: "i-aaaaaaaaaaaaaaaa", port: "8080", snapshot_id: "snap_aaaaaaaaaaaaaaaa", delivery_id: "dlv_aaaaaaaaaaaaaaaa", user_id: "usr-aaaaaaaaaaaaaaaa",
};
