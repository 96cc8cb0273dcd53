// The MachineDO <-> host-agent wire protocol: the only code both sides share.
export * from "./version.ts";
export * from "./ascii-json.ts";
export * from "./messages.ts";
export * from "./codec.ts";
export * from "./resource-share.ts";
export * from "./mux/buffer-release.ts";
export * from "./mux/frames.ts";
export * from "./mux/flow-control.ts";
export * from "./mux/headers.ts";
export * from "./mux/response-frame.ts";
export * from "./mux/close-codes.ts";
export * from "./mux/stream-table.ts";
export * from "./mux/unacknowledged-budget.ts";
export * from "./volumes.ts";
